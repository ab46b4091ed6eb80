#include "distbench/report/prediction.h"

#include <cmath>
#include <cstdlib>

#include "distbench/report/alpha_beta.h"
#include "distbench/report/percentiles.h"
#include "prediction_kinds.h"

namespace distbench::report {
namespace prediction {

using web::json::value;

Context::Context(const Report& report, const PredictOptions& options, double efficiency,
                 std::vector<std::string>& notes)
    : report_(report),
      options_(options),
      efficiency_(efficiency),
      worldSize_(options.worldSize),
      notes_(notes) {
  if (report.localJson.empty()) return;
  const value local = value::parse(report.localJson);
  if (!local.has_field("ranks") || !local.at("ranks").is_array()) return;
  for (const value& rank : local.at("ranks").as_array()) {
    if (!rank.has_field("rank") || !rank.at("rank").is_number()) continue;
    const int r = rank.at("rank").as_integer();
    if (rank.has_field("linkBitsPerSecond") && rank.at("linkBitsPerSecond").is_number()) {
      measuredLinks_[r] = rank.at("linkBitsPerSecond").as_double();
    }
  }
}

double Context::measuredLink(int rank) const {
  auto it = measuredLinks_.find(rank);
  return it == measuredLinks_.end() ? kUnlimitedBitsPerSecond : it->second;
}

double Context::targetLink(int rank) const {
  auto it = options_.rankBitsPerSecond.find(rank);
  if (it != options_.rankBitsPerSecond.end()) return it->second;
  if (options_.bitsPerSecond > 0) return options_.bitsPerSecond;
  return measuredLink(rank);
}

double Context::slowestMeasured(int first, int count) const {
  std::vector<double> rates;
  for (int r = first; r < first + count; ++r) rates.push_back(measuredLink(r));
  return slowestLink(rates);
}

double Context::slowestTarget(int first, int count) const {
  std::vector<double> rates;
  for (int r = first; r < first + count; ++r) rates.push_back(targetLink(r));
  return slowestLink(rates);
}

const Series& Context::series(int index, const std::string& path) const {
  if (index < 0 || index >= static_cast<int>(report_.series.size())) {
    throw ReportError(path + ": series " + std::to_string(index) + " is not in the report");
  }
  return report_.series[index];
}

double Context::seriesP50(int index, const std::string& path) const {
  const Series& s = series(index, path);
  if (s.samples.empty()) throw ReportError(path + ": series " + std::to_string(index) + " has no samples");
  return summarize(s.samples).p50;
}

void Context::note(const std::string& text) const {
  for (const std::string& n : notes_) {
    if (n == text) return;
  }
  notes_.push_back(text);
}

std::optional<double> number(const value& object, const std::string& name) {
  if (!object.is_object() || !object.has_field(name)) return std::nullopt;
  const value& v = object.at(name);
  if (!v.is_number()) return std::nullopt;
  return v.as_double();
}

std::optional<double> p50(const value& object, const std::string& name) {
  if (!object.is_object() || !object.has_field(name)) return std::nullopt;
  return number(object.at(name), "p50");
}

std::optional<double> keyNumber(const Series& series, const std::string& key) {
  auto it = series.groupKey.find(key);
  if (it == series.groupKey.end()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(it->second.c_str(), &end);
  if (end == it->second.c_str() || *end != '\0') return std::nullopt;
  return v;
}

void classify(RowPrediction& row, double computeOnlySeconds) {
  const double share =
      row.predictedSeconds > 0 ? row.communicationSeconds / row.predictedSeconds : 0;
  row.bound = share > 0.2 ? "communication" : share < 0.05 ? "compute" : "mixed";
  row.scalingEfficiency =
      row.predictedSeconds > 0 ? std::min(1.0, computeOnlySeconds / row.predictedSeconds) : 0;
}

}  // namespace prediction

namespace {

void checkOptions(const Report& report, const PredictOptions& options) {
  if (!(options.bitsPerSecond >= 0) || std::isinf(options.bitsPerSecond)) {
    throw PredictOptionError("--bandwidth: must be a positive rate");
  }
  if (!(options.efficiency >= 0 && options.efficiency <= 1)) {
    throw PredictOptionError("--efficiency: must be in (0, 1], the share of the nominal rate a "
                             "transfer gets");
  }
  if (options.worldSize && *options.worldSize < 1) {
    throw PredictOptionError("--world-size: must be at least 1 (trainers, or ranks of a "
                             "Collectives run)");
  }
  const int trainers = options.worldSize.value_or(report.trainers);
  // Ranks: the master, then the parameter servers, then the trainers.
  const int world = 1 + report.parameterServers + trainers;
  for (const auto& [rank, rate] : options.rankBitsPerSecond) {
    const std::string flag = "--rank " + std::to_string(rank);
    if (rank < 0 || rank >= world) {
      throw PredictOptionError(flag + ": no such rank; the predicted run has ranks 0.." +
                               std::to_string(world - 1));
    }
    if (!(rate > 0) || std::isinf(rate)) throw PredictOptionError(flag + ": must be a positive rate");
  }
}

}  // namespace

Prediction predictReport(const Report& measured, const PredictOptions& options) {
  checkOptions(measured, options);
  Prediction out;
  out.efficiency = options.efficiency > 0 ? options.efficiency : kDefaultLinkEfficiency;
  out.bitsPerSecond = options.bitsPerSecond;
  out.rankBitsPerSecond = options.rankBitsPerSecond;
  out.worldSize = options.worldSize;
  const prediction::Context context(measured, options, out.efficiency, out.notes);

  web::json::value results;
  try {
    results = web::json::value::parse(measured.resultsJson);
  } catch (const std::exception& error) {
    throw ReportError("results: not JSON: " + std::string(error.what()));
  }
  if (measured.kind == "DDP") {
    out.rows = prediction::predictDdp(results, context);
  } else if (measured.kind == "HybridDDPRPC") {
    out.rows = prediction::predictHybrid(results, context);
  } else if (measured.kind == "Collectives") {
    out.rows = prediction::predictCollectives(context);
  } else {
    throw ReportError("benchmark.kind: no model for kind '" + measured.kind + "'");
  }
  if (options.bitsPerSecond == 0 && options.rankBitsPerSecond.empty()) {
    context.note("no --bandwidth: every link as measured");
  }
  return out;
}

std::vector<RowPrediction> predict(const Report& measured, const PredictOptions& options) {
  return predictReport(measured, options).rows;
}

}  // namespace distbench::report
