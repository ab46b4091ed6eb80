// Conditions on a DistBenchmark's status, with the Kubernetes API
// conventions: one entry per type, lastTransitionTime moves only when the
// status ("True"/"False") changes, and reason/message say why. Plus the
// timestamps (rfc3339.h).
#pragma once

#include <cpprest/json.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "distbench/kube/rfc3339.h"

namespace distbench::op {

// Condition types the operator sets.
inline constexpr const char* kCondCreated = "Created";
inline constexpr const char* kCondRunning = "Running";
inline constexpr const char* kCondRestarting = "Restarting";
inline constexpr const char* kCondSucceeded = "Succeeded";
inline constexpr const char* kCondFailed = "Failed";
inline constexpr const char* kCondRendezvousTimeout = "RendezvousTimeout";
inline constexpr const char* kCondDeadlineExceeded = "DeadlineExceeded";
inline constexpr const char* kCondBackoffLimitExceeded = "BackoffLimitExceeded";
// A rank refused the run (its worker exited 2: a spec or device it cannot
// run): the run fails at once, whatever backoffLimit allows, since every
// gang would be refused the same way.
inline constexpr const char* kCondRankRefused = "RankRefused";
// The API server refused to create a child (admission, quota, a LimitRange):
// True while it does; the run fails with reason CreateFailed once it has
// for longer than the operator's --create-failure-timeout.
inline constexpr const char* kCondCreateFailed = "CreateFailed";
// A child's name is taken by an object this benchmark does not own.
inline constexpr const char* kCondNameConflict = "NameConflict";
// After Succeeded: whether the run's full report is in its <name>-report
// ConfigMap (False says why not: no report in the master's log, its kubelet
// did not answer in time, too large for a ConfigMap).
inline constexpr const char* kCondReportStored = "ReportStored";
// With spec.baseline, after Succeeded: True when a row regressed over the
// threshold, False when none did, Unknown when nothing could be compared
// (no baseline report, another kind or model, no common row).
inline constexpr const char* kCondRegressionDetected = "RegressionDetected";

// What a condition message, status.message or an Event may carry of `text`:
// no run key (api::redactRunKeys: a rank's log line can hold one, and
// anyone who may read the resource reads these), then bounded
// (bounded_message.h). The redaction comes first, so no cut leaves part of
// a key behind.
std::string statusMessage(const std::string& text);

// Sets condition `type` in status["conditions"], creating the array; the
// message is statusMessage(message). Returns
// true when its status changed (or it is new with status True): the caller
// records an Event for that transition.
bool setCondition(web::json::value& status, const std::string& type, bool isTrue,
                  const std::string& reason, const std::string& message, const std::string& now,
                  int64_t generation);
// The same with any status text: "True", "False" or "Unknown". Returns
// whether the status changed (or the condition is new).
bool setConditionStatus(web::json::value& status, const std::string& type,
                        const std::string& conditionStatus, const std::string& reason,
                        const std::string& message, const std::string& now, int64_t generation);
// The condition `type` of status["conditions"], or null: any object's
// conditions list (a DistBenchmark's, a Kueue Workload's or AdmissionCheck's).
const web::json::value* conditionOf(const web::json::value& status, const std::string& type);
// Whether the list has condition `type` at all.
bool hasCondition(const web::json::value& status, const std::string& type);
bool conditionIsTrue(const web::json::value& status, const std::string& type);
// lastTransitionTime of condition `type`, empty when absent.
std::string conditionSince(const web::json::value& status, const std::string& type);
// The observedGeneration a condition was last set from; 0 when absent.
int64_t conditionGeneration(const web::json::value& status, const std::string& type);

}  // namespace distbench::op
