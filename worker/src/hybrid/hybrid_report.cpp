#include "distbench/worker/hybrid/hybrid_report.h"

#include <cpprest/json.h>

#include <cmath>
#include <map>
#include <optional>
#include <string>

#include "distbench/report/report_json.h"
#include "distbench/worker/common/report_builder.h"
#include "distbench/worker/common/step_samples.h"

namespace distbench::worker {
namespace {

using web::json::value;

// Whole bytes print as integers; a fraction (a step count that does not
// divide a total) stays as it is.
value bytes(double n) {
  const double whole = std::round(n);
  return whole == n ? value::number(static_cast<int64_t>(whole)) : value::number(n);
}

value numbers(const std::vector<double>& values) {
  value out = value::array(values.size());
  for (size_t i = 0; i < values.size(); ++i) out[i] = value::number(values[i]);
  return out;
}

value summaryOrNull(const std::optional<report::Summary>& s) {
  return s ? value::parse(report::summaryToJson(*s)) : value::null();
}

value parameterServersJson(const std::vector<ParameterServerResult>& servers) {
  value out = value::array();
  for (size_t i = 0; i < servers.size(); ++i) {
    const ParameterServerResult& ps = servers[i];
    value service = value::object(true);
    service["lookup"] = summaryOrNull(ps.stats.lookup);
    service["pushGrad"] = summaryOrNull(ps.stats.pushGrad);
    service["step"] = summaryOrNull(ps.stats.step);
    value perStep = value::object(true);
    perStep["received"] = bytes(ps.stats.bytesReceivedPerStep);
    perStep["sent"] = bytes(ps.stats.bytesSentPerStep);
    value entry = value::object(true);
    entry["name"] = value::string(ps.name);
    entry["rank"] = value::number(ps.rank);
    entry["service"] = service;
    entry["bytesPerStep"] = perStep;
    // Per measured step, the mean service time of that step's requests:
    // what the parameter-server comparison resamples.
    entry["serviceSamples"] = numbers(thinnedSteps(ps.stats.serviceSamples));
    out[i] = entry;
  }
  return out;
}

}  // namespace

report::Report hybridReport(const api::DistBenchmark& b, const std::vector<TrainerResult>& trainers,
                            const report::Host& host, const HybridTraffic& traffic) {
  report::Report r = reportEnvelope(b, host);
  const api::HybridDDPRPCSpec& h = b.spec.benchmark.hybridDDPRPC;
  std::string layers;
  for (const std::string& l : h.denseLayers) layers += (layers.empty() ? "" : ",") + l;
  // Everything that sets an epoch's work, so that two reports with equal keys
  // differ in examples per epoch only by the batch generator's draws, which
  // `distbench diff` then compares per example.
  const std::map<std::string, std::string> key = {
      {"denseLayers", layers},
      {"numEmbeddings", std::to_string(h.numEmbeddings)},
      {"embeddingDim", std::to_string(h.embeddingDim)},
      {"embeddingMode", api::toString(h.embeddingMode)},
      {"batchesPerEpoch", std::to_string(h.batchesPerEpoch)},
      {"minBagIndices", std::to_string(h.minBagIndices)},
      {"maxBagIndices", std::to_string(h.maxBagIndices)},
      {"maxOffsetStep", std::to_string(h.maxOffsetStep)},
      {"parameterServerMode", api::toString(h.parameterServerMode)}};

  value results = value::object();
  value trainerRefs = value::array();
  report::Series all;
  all.group = "HybridDDPRPC";
  all.groupKey = key;
  all.row = "All";
  all.ranks = static_cast<int>(trainers.size());
  all.sampleOf = "epoch";
  for (size_t i = 0; i < trainers.size(); ++i) {
    const TrainerResult& t = trainers[i];
    report::Series s = all;
    s.row = t.name;
    s.ranks = 1;
    s.workPerSample = t.examplesPerEpoch;
    s.samples = t.epochSeconds;
    value ref = value::object();
    ref["name"] = value::string(t.name);
    ref["rank"] = value::number(t.rank);
    ref["series"] = value::number(static_cast<int>(r.series.size()));
    if (!t.phases.empty()) {
      value phases = value::object(true);
      value samples = value::object(true);
      for (const PhaseSamples& p : t.phases) {
        // No measured epoch leaves nothing to summarize; the series' own
        // check then says so.
        if (p.seconds.empty()) continue;
        phases[p.name] = value::parse(report::summaryToJson(p.seconds));
        samples[p.name] = numbers(thinnedSteps(p.seconds));
      }
      ref["phases"] = phases;
      // Per measured epoch, as the trainer's series: the straggler test
      // resamples them with the epochs (a summary cannot be resampled).
      ref["phaseSamples"] = samples;
    }
    if (traffic.trainers.size() == trainers.size()) {
      const TrainerTraffic& bytesOf = traffic.trainers[i];
      value perStep = value::object(true);
      perStep["sent"] = bytes(bytesOf.bytesSentPerStep);
      perStep["received"] = bytes(bytesOf.bytesReceivedPerStep);
      ref["bytesPerStep"] = perStep;
      ref["denseGradientBytes"] = bytes(bytesOf.denseGradientBytes);
    }
    trainerRefs[i] = ref;
    all.workPerSample += t.examplesPerEpoch;
    all.samples.insert(all.samples.end(), t.epochSeconds.begin(), t.epochSeconds.end());
    r.series.push_back(std::move(s));
  }
  results["trainers"] = trainerRefs;
  value allRef = value::object();
  allRef["series"] = value::number(static_cast<int>(r.series.size()));
  results["all"] = allRef;
  results["parameterServers"] = parameterServersJson(traffic.parameterServers);
  r.series.push_back(std::move(all));
  r.resultsJson = results.serialize();
  return r;
}

}  // namespace distbench::worker
