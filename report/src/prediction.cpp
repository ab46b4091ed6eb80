#include "distbench/report/prediction.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "distbench/report/alpha_beta.h"
#include "distbench/report/percentiles.h"
#include "host_sharing.h"
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
  const auto& ranks = local.at("ranks").as_array();
  for (size_t i = 0; i < ranks.size(); ++i) {
    const value& rank = ranks.at(i);
    const std::string path = "local.ranks[" + std::to_string(i) + "]";
    const std::optional<int> r = wholeNumber(rank, "rank", path, 0, 2 * kMaxPredictRanks + 1);
    if (!r) continue;
    const auto rate = number(rank, "linkBitsPerSecond", path);
    if (!rate) continue;
    measuredLinks_[*r] = *rate;
    // Reports before burstBytes was recorded were shaped by tbf all the same.
    const auto burst = number(rank, "burstBytes", path);
    measuredBursts_[*r] = burst ? std::max(0.0, *burst) : static_cast<double>(tbfBurstBytes(*rate));
  }
}

double Context::burstFor(int rank, double bitsPerSecond, bool overridden) const {
  if (!std::isfinite(bitsPerSecond)) return 0;
  if (!overridden) {
    auto it = measuredBursts_.find(rank);
    return it == measuredBursts_.end() ? 0 : it->second;
  }
  switch (options_.burst) {
    case LinkBurst::Tbf:
      return static_cast<double>(tbfBurstBytes(bitsPerSecond));
    case LinkBurst::Bytes:
      return options_.burstBytes;
    case LinkBurst::None:
      break;
  }
  return 0;
}

namespace {

// The first of ranks first..first+count-1 that `links` gives `rate`.
std::optional<int> rankAt(const std::map<int, double>& links, int first, int count, double rate) {
  const long long end = static_cast<long long>(first) + count;
  for (const auto& [rank, r] : links) {
    if (rank >= first && rank < end && r == rate) return rank;
  }
  return std::nullopt;
}

}  // namespace

Context::LinkView Context::measuredLinkView(int first, int count) const {
  LinkView view{slowestMeasured(first, count), 0};
  if (const auto rank = rankAt(measuredLinks_, first, count, view.bitsPerSecond)) {
    view.burstBytes = burstFor(*rank, view.bitsPerSecond, false);
  }
  return view;
}

Context::LinkView Context::targetLinkView(int first, int count) const {
  LinkView view{slowestTarget(first, count), 0};
  if (!std::isfinite(view.bitsPerSecond)) return view;
  // The slowest link is one the options set, or one left as measured.
  if (const auto rank = rankAt(options_.rankBitsPerSecond, first, count, view.bitsPerSecond)) {
    view.burstBytes = burstFor(*rank, view.bitsPerSecond, true);
  } else if (options_.bitsPerSecond > 0 && options_.bitsPerSecond == view.bitsPerSecond) {
    view.burstBytes = burstFor(first, view.bitsPerSecond, true);
  } else if (const auto measured = rankAt(measuredLinks_, first, count, view.bitsPerSecond)) {
    view.burstBytes = burstFor(*measured, view.bitsPerSecond, false);
  }
  return view;
}

bool Context::sharesCpus() const {
  // A local run shares one host however few its ranks.
  if (report_.localJson.empty()) return ranksOutnumberCpus(report_);
  return report_.device != "cuda" && report_.host.logicalCpus > 0;
}

double Context::contention(int before, int after) const {
  if (!sharesCpus() || before == after) return 1;
  const double cpus = report_.host.logicalCpus;
  return std::max(1.0, after / cpus) / std::max(1.0, before / cpus);
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

// Over the listed ranks only, never rank by rank: a range is as wide as
// the world, and an unlisted rank is unlimited (measured) or at the
// options' rate.
double Context::slowestMeasured(int first, int count) const {
  const long long end = static_cast<long long>(first) + count;
  double slowest = kUnlimitedBitsPerSecond;
  for (const auto& [rank, rate] : measuredLinks_) {
    if (rank >= first && rank < end) slowest = std::min(slowest, rate);
  }
  return slowest;
}

double Context::slowestTarget(int first, int count) const {
  const long long end = static_cast<long long>(first) + count;
  double slowest = kUnlimitedBitsPerSecond;
  long long overridden = 0;
  for (const auto& [rank, rate] : options_.rankBitsPerSecond) {
    if (rank < first || rank >= end) continue;
    slowest = std::min(slowest, rate);
    ++overridden;
  }
  if (overridden >= count) return slowest;  // every rank has its own rate
  if (options_.bitsPerSecond > 0) return std::min(slowest, options_.bitsPerSecond);
  for (const auto& [rank, rate] : measuredLinks_) {
    if (rank >= first && rank < end && options_.rankBitsPerSecond.count(rank) == 0) {
      slowest = std::min(slowest, rate);
    }
  }
  return slowest;
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

RowPrediction Context::rowFor(int index, const std::string& path) const {
  const Series& s = series(index, path);
  RowPrediction row;
  row.group = s.group;
  row.row = s.row;
  row.sampleOf = s.sampleOf;
  row.measuredSeconds = seriesP50(index, path);
  return row;
}

void Context::note(const std::string& text) const {
  for (const std::string& n : notes_) {
    if (n == text) return;
  }
  notes_.push_back(text);
}

namespace {

std::string join(const std::string& path, const std::string& name) {
  return path.empty() ? name : path + "." + name;
}

}  // namespace

std::optional<double> number(const value& object, const std::string& name,
                             const std::string& path) {
  if (!object.is_object() || !object.has_field(name)) return std::nullopt;
  const value& v = object.at(name);
  if (!v.is_number()) return std::nullopt;
  const double n = v.as_double();
  if (!std::isfinite(n)) throw ReportError(join(path, name) + ": must be a finite number");
  return n;
}

std::optional<int> wholeNumber(const value& object, const std::string& name,
                               const std::string& path, int min, int max) {
  const std::optional<double> n = number(object, name, path);
  if (!n) return std::nullopt;
  if (!(*n >= min && *n <= max) || *n != std::floor(*n)) {
    throw ReportError(join(path, name) + ": must be a whole number in " + std::to_string(min) +
                      ".." + std::to_string(max));
  }
  return static_cast<int>(*n);
}

std::optional<double> p50(const value& object, const std::string& name, const std::string& path) {
  if (!object.is_object() || !object.has_field(name)) return std::nullopt;
  return number(object.at(name), "p50", join(path, name));
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

// The report's counts the models loop or size by; the rows' own fields are
// checked where each kind reads them.
void checkReport(const Report& report) {
  auto count = [](const std::string& field, int n) {
    if (n < 0 || n > kMaxPredictRanks) {
      throw ReportError(field + ": " + std::to_string(n) + "; distbench predict models 0.." +
                        std::to_string(kMaxPredictRanks));
    }
  };
  count("topology.trainers", report.trainers);
  count("topology.parameterServers", report.parameterServers);
  for (size_t i = 0; i < report.series.size(); ++i) {
    count("series[" + std::to_string(i) + "].ranks", report.series[i].ranks);
  }
  if (!std::isfinite(report.bucketCapMB)) {
    throw ReportError("bucketCapMB: must be a finite number");
  }
}

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
  if (options.worldSize && *options.worldSize > kMaxPredictRanks) {
    throw PredictOptionError("--world-size: at most " + std::to_string(kMaxPredictRanks) +
                             ", not " + std::to_string(*options.worldSize));
  }
  if (options.parameterServers) {
    if (report.kind != "HybridDDPRPC") {
      throw PredictOptionError("--parameter-servers: only a HybridDDPRPC run has parameter "
                               "servers; this is a " + report.kind + " run");
    }
    if (*options.parameterServers < 1 || *options.parameterServers > kMaxPredictRanks) {
      throw PredictOptionError("--parameter-servers: must be in 1.." +
                               std::to_string(kMaxPredictRanks) + ", not " +
                               std::to_string(*options.parameterServers));
    }
  }
  if (options.burst == LinkBurst::Bytes &&
      !(options.burstBytes >= 0 && std::isfinite(options.burstBytes))) {
    throw PredictOptionError("--link-burst: must be a number of bytes (0: none) or 'tbf'");
  }
  const int trainers = options.worldSize.value_or(report.trainers);
  // Ranks: the master, then the parameter servers, then the trainers.
  const int world =
      1 + options.parameterServers.value_or(report.parameterServers) + trainers;
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
  checkReport(measured);
  checkOptions(measured, options);
  Prediction out;
  out.efficiency = options.efficiency > 0 ? options.efficiency : kDefaultLinkEfficiency;
  out.bitsPerSecond = options.bitsPerSecond;
  out.rankBitsPerSecond = options.rankBitsPerSecond;
  out.worldSize = options.worldSize;
  out.parameterServers = options.parameterServers;
  out.linkBurst = options.burst == LinkBurst::Tbf     ? "tbf"
                  : options.burst == LinkBurst::Bytes ? std::to_string(std::llround(options.burstBytes)) + " bytes"
                                                      : "none";
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
