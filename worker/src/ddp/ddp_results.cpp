#include "distbench/worker/ddp/ddp_results.h"

#include <cpprest/json.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "distbench/report/percentiles.h"
#include "distbench/report/report_json.h"
#include "distbench/worker/common/result_table.h"
#include "distbench/worker/common/step_samples.h"

namespace distbench::worker {
namespace {

using web::json::value;

constexpr double kPercentiles[] = {50, 75, 90, 95};

// `num / den`, or null where that is no finite number (a time of 0 s):
// JSON has no infinity, and a report holding one could not be read back.
value ratio(double num, double den) {
  const double r = num / den;
  return den > 0 && std::isfinite(r) ? value::number(r) : value::null();
}

double p50(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  return report::percentileLinear(samples, 50);
}

std::string groupName(const std::string& model, int batchSize) {
  return model + " with batch size " + std::to_string(batchSize);
}

// The report's phase keys, in step order.
const std::pair<const char*, std::vector<double> DdpPhaseSamples::*> kPhaseFields[] = {
    {"iteration", &DdpPhaseSamples::iteration},
    {"forward", &DdpPhaseSamples::forward},
    {"backward", &DdpPhaseSamples::backward},
    {"allreduceWait", &DdpPhaseSamples::allreduceWait},
    {"optimizerStep", &DdpPhaseSamples::optimizerStep}};

// JSON has no NaN: a moment no iteration saw is null.
value seconds(double s) { return std::isnan(s) ? value::null() : value::number(s); }

value samplesJson(const std::vector<double>& samples) {
  value out = value::array(samples.size());
  for (size_t i = 0; i < samples.size(); ++i) out[i] = seconds(samples[i]);
  return out;
}

// One entry per rank that ran the row, ordered by rank (the trainers ran
// it in trainer order, which is rank order).
value perRankJson(const DdpRowResult& row) {
  value out = value::array();
  for (size_t i = 0; i < row.perRank.size(); ++i) {
    value phases = value::object(true);
    value samples = value::object(true);
    for (const auto& [name, phase] : kPhaseFields) {
      phases[name] = value::parse(report::summaryToJson(row.perRank[i].*phase));
      samples[name] = samplesJson(thinnedSteps(row.perRank[i].*phase));
    }
    value entry = value::object(true);
    entry["rank"] = value::number(i < row.ranks.size() ? row.ranks[i] : static_cast<int>(i));
    entry["phases"] = phases;
    // Every measured iteration, in order: the straggler test's interval
    // resamples them (a summary cannot be resampled).
    entry["phaseSamples"] = samples;
    out[i] = entry;
  }
  return out;
}

// gradientBytes and buckets, on a DDP row's JSON.
void addBuckets(value& rowJson, const DdpRowResult& row) {
  const std::vector<BucketSummary> buckets = combineRankBuckets(row.bucketsPerRank, row.ranks);
  int64_t total = 0;
  value list = value::array();
  for (size_t b = 0; b < buckets.size(); ++b) {
    value bj = value::object(true);
    bj["index"] = value::number(static_cast<int>(b));
    bj["parameters"] = value::number(buckets[b].parameters);
    bj["bytes"] = value::number(buckets[b].bytes);
    bj["firstGradient"] = seconds(buckets[b].firstGradient);
    bj["launched"] = seconds(buckets[b].launched);
    bj["completed"] = seconds(buckets[b].completed);
    list[b] = bj;
    total += buckets[b].bytes;
  }
  rowJson["gradientBytes"] = value::number(total);
  rowJson["buckets"] = list;
}

}  // namespace

std::vector<double> DdpRowResult::pooled(std::vector<double> DdpPhaseSamples::*phase) const {
  std::vector<double> all;
  for (const DdpPhaseSamples& r : perRank) {
    all.insert(all.end(), (r.*phase).begin(), (r.*phase).end());
  }
  return all;
}

std::string formatDdpHeader(const std::string& model, int batchSize, bool gpus) {
  SweepRow sample;
  const size_t indent = sweepRowPrefix(sample, gpus).size() + 1;
  std::string out = "\nBenchmark: " + groupName(model, batchSize) + "\n\n";
  out += std::string(indent, ' ');
  for (size_t i = 0; i < std::size(kPercentiles); ++i)
    out += formatText("%14s%10s", "sec/iter", "ex/sec");
  return out + formatText("%13s%8s", "agg ex/sec", "eff") + "\n";
}

std::string formatDdpRow(const DdpRowResult& result, int batchSize, const DdpRowResult& baseline,
                         bool gpus) {
  const double baselineP50 = p50(baseline.pooled(&DdpPhaseSamples::iteration));
  const std::vector<double> samples = result.pooled(&DdpPhaseSamples::iteration);
  std::string line = formatTableRow(sweepRowPrefix(result.row, gpus), batchSize, samples);
  line.pop_back();  // the newline
  const double median = p50(samples);
  line += formatText("  %9d/s  %5.1f%%", static_cast<int>(result.row.ranks * batchSize / median),
                     100.0 * baselineP50 / median);
  return line + "\n";
}

void addDdpResults(report::Report& report, const api::DDPSpec& spec,
                   const std::vector<DdpModelResult>& models,
                   const std::vector<int64_t>& parameterCounts) {
  value modelsJson = value::array();
  for (size_t m = 0; m < models.size(); ++m) {
    const DdpModelResult& model = models[m];
    value mj = value::object();
    mj["model"] = value::string(model.model);
    mj["batchSize"] = value::number(spec.batchSize);
    mj["imageSize"] = value::number(spec.imageSize);
    if (m < parameterCounts.size()) mj["parameters"] = value::number(parameterCounts[m]);
    value rows = value::array();
    const double baseline = p50(model.rows.front().pooled(&DdpPhaseSamples::iteration));
    for (size_t i = 0; i < model.rows.size(); ++i) {
      const DdpRowResult& row = model.rows[i];
      report::Series s;
      s.group = groupName(model.model, spec.batchSize);
      s.groupKey = {{"model", model.model},
                    {"batchSize", std::to_string(spec.batchSize)},
                    {"imageSize", std::to_string(spec.imageSize)}};
      s.row = row.row.label;
      s.ranks = row.row.ranks;
      s.sampleOf = "iteration";
      s.workPerSample = spec.batchSize;
      s.workUnit = "examples";
      s.samples = row.pooled(&DdpPhaseSamples::iteration);

      std::vector<double> sorted = s.samples;
      std::sort(sorted.begin(), sorted.end());
      value rj = value::object();
      rj["row"] = value::string(row.row.label);
      rj["ranks"] = value::number(row.row.ranks);
      rj["machines"] = value::number(row.row.machines);
      rj["ranksPerMachine"] = value::number(row.row.ranksPerMachine);
      rj["ddp"] = value::boolean(row.row.ddp);
      rj["series"] = value::number(static_cast<int>(report.series.size()));
      value aggregate = value::object();
      for (double p : kPercentiles) {
        aggregate[formatText("p%02d", static_cast<int>(p))] =
            ratio(row.row.ranks * spec.batchSize, report::percentileLinear(sorted, p));
      }
      rj["aggregateExamplesPerSecond"] = aggregate;
      rj["scalingEfficiency"] = ratio(baseline, report::percentileLinear(sorted, 50));
      value phases = value::object();
      // The pooled phases, as before perRank: the iteration is the series.
      for (const auto& [name, phase] : kPhaseFields) {
        if (phase == &DdpPhaseSamples::iteration) continue;
        phases[name] = value::parse(report::summaryToJson(row.pooled(phase)));
      }
      rj["phases"] = phases;
      rj["perRank"] = perRankJson(row);
      if (row.row.ddp) addBuckets(rj, row);
      rows[i] = rj;
      report.series.push_back(std::move(s));
    }
    mj["rows"] = rows;
    modelsJson[m] = mj;
  }
  value results = value::object();
  results["models"] = modelsJson;
  report.resultsJson = results.serialize();
}

}  // namespace distbench::worker
