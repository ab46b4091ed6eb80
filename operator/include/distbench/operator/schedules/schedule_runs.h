// A DistBenchmarkSchedule's runs as its reconcile sees them: the
// DistBenchmarks it created itself, as status.runs records them by the
// UID the API server gave each, in the order they were scheduled, each
// reduced to what the schedule decides on and reports: finished or not,
// how, and what its comparison with the rolling baseline said. A name, a
// label, an annotation and a controller reference are all a user's to set
// on a DistBenchmark of their own; a UID is not. Pure: no API calls.
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

// One run the schedule created (status.runs[]): kept from its create until
// it is gone (history limits, Replace, a person, its TTL).
struct RunRecord {
  std::string name, uid;
  kube::SystemTime scheduledAt;  // the firing it was created for
};

// status.runs as the schedule wrote it; entries it cannot read are left
// out (the status is the operator's, but a person may edit it).
std::vector<RunRecord> runRecords(const web::json::value& status);
web::json::value runRecordsJson(const std::vector<RunRecord>& records);

struct ScheduledRun {
  std::string name, uid;
  kube::SystemTime scheduledAt;  // the record's; the annotation is only a label for people
  std::string phase;       // Pending | Running | Succeeded | Failed
  bool deleting = false;
  // Finished and its outcome complete: Failed, or Succeeded with its report
  // stored (or said why not) and, with a baseline, compared.
  bool settled = false;
  bool succeeded = false;
  bool reportStored = false;
  std::optional<kube::SystemTime> finishedAt;  // status.completionTime
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

// The runs of schedule `uid` among `objects`: those whose metadata.uid is
// in `recorded` and that still carry its controller reference, each
// scheduled at its record's time, oldest first. Any other object, whatever
// its name, labels or annotations, is not the schedule's.
std::vector<ScheduledRun> scheduledRuns(const std::vector<web::json::value>& objects,
                                        const std::string& uid,
                                        const std::vector<RunRecord>& recorded);

// The run's outcome read from one DistBenchmark.
ScheduledRun scheduledRunOf(const web::json::value& benchmark);

}  // namespace distbench::op
