#include "distbench/operator/preflight/check_run_verdict.h"

#include <algorithm>
#include <cstdio>

#include "distbench/kube/json_fields.h"
#include "distbench/operator/common/status_conditions.h"

namespace distbench::op {
namespace {

using web::json::value;
using kube::fieldOf;
using kube::stringField;

// How many suspects one summary names; the run's status lists the rest.
constexpr std::size_t kSummarySuspects = 4;

double numberField(const value& object, const char* name) {
  const value* v = fieldOf(object, name);
  return v != nullptr && v->is_number() ? v->as_double() : 0;
}

// "9.81 GB/s" or "1.20 TFLOP/s": three significant digits, decimal units.
std::string figure(double v, const std::string& unit) {
  const bool flops = unit == "FLOP/s";
  const char* prefixes[] = {"", "k", "M", "G", "T", "P"};
  int p = 0;
  while (v >= 1000 && p < 5) {
    v /= 1000;
    ++p;
  }
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, v >= 100 ? "%.0f %s%s" : v >= 10 ? "%.1f %s%s" : "%.2f %s%s",
                v, prefixes[p], flops ? "FLOP/s" : "B/s");
  return buffer;
}

std::string suspectLine(const value& s) {
  const std::string unit = stringField(s, "unit");
  const value* estimate = fieldOf(s, "estimate");
  std::string line = stringField(s, "what") + " " + stringField(s, "where");
  if (estimate != nullptr) {
    line += ": " + figure(numberField(*estimate, "value"), unit) + " [" +
            figure(numberField(*estimate, "low"), unit) + ", " +
            figure(numberField(*estimate, "high"), unit) + "]";
  }
  line += " against the line's " + figure(numberField(s, "line"), unit);
  return line;
}

CheckRunVerdict judged(const value& fabric) {
  CheckRunVerdict v;
  std::vector<std::string> slow, undecided;
  const value* suspects = fieldOf(fabric, "suspects");
  if (suspects != nullptr && suspects->is_array()) {
    for (const value& s : suspects->as_array()) {
      const bool isSlow = stringField(s, "status") == "Slow";
      (isSlow ? slow : undecided).push_back(suspectLine(s));
      const value* nodes = fieldOf(s, "nodes");
      if (!isSlow || stringField(s, "what") == "link" || nodes == nullptr || !nodes->is_array()) {
        continue;
      }
      for (const value& n : nodes->as_array()) {
        if (n.is_string() && std::find(v.slowNodes.begin(), v.slowNodes.end(), n.as_string()) ==
                                 v.slowNodes.end()) {
          v.slowNodes.push_back(n.as_string());
        }
      }
    }
  }
  const int64_t omitted = kube::intField(fabric, "suspectsOmitted");
  const std::vector<std::string>& named = slow.empty() ? undecided : slow;
  std::string list;
  for (std::size_t i = 0; i < named.size() && i < kSummarySuspects; ++i) {
    list += (i ? "; " : "") + named[i];
  }
  const std::size_t more = named.size() - std::min(named.size(), kSummarySuspects) +
                           static_cast<std::size_t>(std::max<int64_t>(0, omitted));
  if (more > 0) list += "; and " + std::to_string(more) + " more";
  const value* line = fieldOf(fabric, "line");
  const std::string threshold = std::to_string(static_cast<int>(numberField(fabric, "thresholdPercent")));
  if (!slow.empty()) {
    v.outcome = CheckRunOutcome::Slow;
    v.summary = "slow (over " + threshold + " % below the line): " + list;
  } else if (!undecided.empty()) {
    v.outcome = CheckRunOutcome::Inconclusive;
    v.summary = "inconclusive (the interval straddles the line): " + list;
  } else {
    v.outcome = CheckRunOutcome::Healthy;
    v.summary = "healthy: " + std::to_string(kube::intField(fabric, "nodes")) +
                " nodes within " + threshold + " % of the " +
                (line != nullptr ? stringField(*line, "source") : std::string("group")) +
                " line (links " +
                figure(line != nullptr ? numberField(*line, "bandwidthBytesPerSecond") : 0, "B/s") +
                ", compute " +
                figure(line != nullptr ? numberField(*line, "computeFlops") : 0, "FLOP/s") + "; " +
                std::to_string(kube::intField(fabric, "pairsMeasured")) + " of " +
                std::to_string(kube::intField(fabric, "pairsTotal")) + " pairs measured)";
  }
  return v;
}

}  // namespace

const char* toString(CheckRunOutcome outcome) {
  switch (outcome) {
    case CheckRunOutcome::Running:
      return "Running";
    case CheckRunOutcome::Healthy:
      return "Healthy";
    case CheckRunOutcome::Slow:
      return "Slow";
    case CheckRunOutcome::Inconclusive:
      return "Inconclusive";
    case CheckRunOutcome::Failed:
      return "Failed";
  }
  return "?";
}

CheckRunVerdict readCheckRunVerdict(const value& benchmark) {
  CheckRunVerdict v;
  const value* status = fieldOf(benchmark, "status");
  if (status == nullptr) return v;
  const std::string phase = stringField(*status, "phase");
  if (phase == "Failed") {
    v.outcome = CheckRunOutcome::Failed;
    v.summary = "the check's run failed: " + stringField(*status, "message");
    return v;
  }
  if (phase != "Succeeded") return v;
  if (const value* fabric = fieldOf(*status, "fabric")) return judged(*fabric);
  if (const value* stored = conditionOf(*status, kCondReportStored)) {
    v.outcome = CheckRunOutcome::Failed;
    v.summary = stringField(*stored, "status") == "False"
                    ? "the check's run finished without a report: " + stringField(*stored, "message")
                    : "the check's run stored a report without a fabric verdict (its "
                      "FabricUnreadable Event says why)";
    return v;
  }
  return v;  // Succeeded, report not stored yet
}

}  // namespace distbench::op
