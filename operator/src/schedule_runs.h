// A DistBenchmarkSchedule's runs as its reconcile sees them: the
// DistBenchmarks it controls (from the cache), in the order they were
// scheduled, each reduced to what the schedule decides on and reports:
// finished or not, how, and what its comparison with the rolling baseline
// said. Pure: no API calls.
#pragma once

#include <cpprest/json.h>

#include <optional>
#include <string>
#include <vector>

#include "distbench/kube/rfc3339.h"

namespace distbench::op {

// Verdicts in status.lastRun.verdict and the schedule's Events.
inline constexpr const char* kVerdictRegression = "Regression";
inline constexpr const char* kVerdictNoRegression = "NoRegression";
inline constexpr const char* kVerdictNoBaseline = "NoBaseline";
inline constexpr const char* kVerdictFailed = "Failed";

struct ScheduledRun {
  std::string name, uid;
  SystemTime scheduledAt;  // the distbench.io/scheduled-at annotation
  std::string phase;       // Pending | Running | Succeeded | Failed
  bool deleting = false;
  // Finished and its outcome complete: Failed, or Succeeded with its report
  // stored (or said why not) and, with a baseline, compared.
  bool settled = false;
  bool succeeded = false;
  bool reportStored = false;
  std::optional<SystemTime> finishedAt;  // status.completionTime
  std::string verdict;                   // once settled
  std::string verdictMessage;            // the condition's message, for Events
  // RegressionDetected's reason: RegressionDetected | NoRegression, or why
  // nothing was compared (BaselineIncomparable, NothingCompared, ...).
  std::string verdictReason;
  std::string worstRow;                  // status.baseline.worstRow
  std::string p50;                       // status.results.p50 ("0.412s")
  std::string message;                   // status.message
  bool finished() const { return phase == "Succeeded" || phase == "Failed"; }
};

// The runs of schedule `uid` among `objects` (DistBenchmarks it controls and
// that carry a readable scheduled-at annotation), oldest first.
std::vector<ScheduledRun> scheduledRuns(const std::vector<web::json::value>& objects,
                                        const std::string& uid);

// The run's outcome read from one DistBenchmark.
ScheduledRun scheduledRunOf(const web::json::value& benchmark);

}  // namespace distbench::op
