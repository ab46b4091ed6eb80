#include "distbench/operator/schedules/schedule_runs.h"

#include <algorithm>

#include "distbench/api/schedule_spec.h"
#include "distbench/kube/json_fields.h"
#include "distbench/operator/common/ownership.h"
#include "distbench/operator/common/status_conditions.h"

namespace distbench::op {

using web::json::value;

ScheduledRun scheduledRunOf(const value& b) {
  ScheduledRun run;
  const value empty = value::object();
  const value& meta = b.has_field("metadata") ? b.at("metadata") : empty;
  run.name = kube::stringField(meta, "name");
  run.uid = kube::stringField(meta, "uid");
  run.deleting = isDeleting(b);
  run.scheduledAt =
      kube::parseRfc3339(kube::stringField(meta, "annotations", api::kScheduledAtAnnotation))
          .value_or(kube::SystemTime{});
  const value& status = b.has_field("status") ? b.at("status") : empty;
  run.phase = kube::stringField(status, "phase");
  if (run.phase.empty()) run.phase = "Pending";
  run.message = kube::stringField(status, "message");
  run.p50 = kube::stringField(status, "results", "p50");
  run.worstRow = kube::stringField(status, "baseline", "worstRow");
  if (const std::string done = kube::stringField(status, "completionTime"); !done.empty())
    run.finishedAt = kube::parseRfc3339(done);
  if (run.phase == "Failed") {
    run.settled = true;
    run.verdict = kVerdictFailed;
    run.verdictMessage = run.message;
    return run;
  }
  if (run.phase != "Succeeded") return run;
  run.succeeded = true;
  // The report store writes ReportStored and, with a baseline, the
  // comparison in the same status write; until then the outcome is open.
  const value* stored = conditionOf(status, kCondReportStored);
  if (stored == nullptr) return run;
  run.settled = true;
  run.reportStored = kube::stringField(*stored, "status") == "True";
  const value* regression = conditionOf(status, kCondRegressionDetected);
  if (regression == nullptr) {
    run.verdict = kVerdictNoBaseline;
    run.verdictMessage = run.reportStored ? "no baseline yet: the pool holds no run"
                                          : kube::stringField(*stored, "message");
    return run;
  }
  const std::string s = kube::stringField(*regression, "status");
  run.verdict = s == "True" ? kVerdictRegression : s == "False" ? kVerdictNoRegression
                                                                : kVerdictNoBaseline;
  run.verdictMessage = kube::stringField(*regression, "message");
  run.verdictReason = kube::stringField(*regression, "reason");
  return run;
}

std::vector<RunRecord> runRecords(const value& status) {
  std::vector<RunRecord> records;
  const value* list = kube::fieldOf(status, "runs");
  if (list == nullptr || !list->is_array()) return records;
  for (const value& entry : list->as_array()) {
    RunRecord r;
    r.name = kube::stringField(entry, "name");
    r.uid = kube::stringField(entry, "uid");
    const auto at = kube::parseRfc3339(kube::stringField(entry, "scheduledTime"));
    if (r.name.empty() || r.uid.empty() || !at) continue;
    r.scheduledAt = *at;
    records.push_back(std::move(r));
  }
  return records;
}

value runRecordsJson(const std::vector<RunRecord>& records) {
  value list = value::array();
  for (const RunRecord& r : records) {
    value entry = value::object();
    entry["name"] = value::string(r.name);
    entry["uid"] = value::string(r.uid);
    entry["scheduledTime"] = value::string(kube::formatRfc3339(r.scheduledAt));
    list[list.size()] = entry;
  }
  return list;
}

std::vector<ScheduledRun> scheduledRuns(const std::vector<value>& objects, const std::string& uid,
                                        const std::vector<RunRecord>& recorded) {
  std::vector<ScheduledRun> runs;
  for (const value& b : objects) {
    if (!isController(b, uid)) continue;
    ScheduledRun run = scheduledRunOf(b);
    const auto record = std::find_if(recorded.begin(), recorded.end(),
                                     [&](const RunRecord& r) { return r.uid == run.uid; });
    if (run.uid.empty() || record == recorded.end()) continue;  // not created by this schedule
    run.scheduledAt = record->scheduledAt;
    runs.push_back(std::move(run));
  }
  std::sort(runs.begin(), runs.end(), [](const ScheduledRun& a, const ScheduledRun& b) {
    return a.scheduledAt != b.scheduledAt ? a.scheduledAt < b.scheduledAt : a.name < b.name;
  });
  return runs;
}

}  // namespace distbench::op
