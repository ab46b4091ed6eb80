#include "distbench/operator/schedules/schedule_reconciler.h"

#include <algorithm>
#include <optional>

#include "distbench/api/object_names.h"
#include "distbench/api/pod_security_profile.h"
#include "distbench/api/schedule_spec.h"
#include "distbench/api/spec_error.h"
#include "distbench/kube/bounded_message.h"
#include "distbench/kube/json_fields.h"
#include "distbench/operator/common/benchmark_object.h"
#include "distbench/operator/common/crd_names.h"
#include "distbench/operator/common/finite_status.h"
#include "distbench/operator/common/ownership.h"
#include "distbench/operator/common/status_conditions.h"
#include "distbench/operator/schedules/schedule_baseline.h"
#include "distbench/operator/schedules/schedule_plan.h"
#include "distbench/operator/schedules/schedule_timing.h"
#include "distbench/report/report_json.h"

namespace distbench::op {
namespace {

using web::json::value;

// Rows kept in status.lastRun.rows: a collectives sweep has dozens; the
// status stays small and the metrics bounded.
constexpr std::size_t kMaxStatusRows = 64;
// How soon a schedule whose status was refused tries again, when nothing
// else brings it back sooner.
constexpr std::chrono::seconds kStatusRetry{60};

std::string schedulePath(const std::string& ns, const std::string& name = "") {
  return kube::groupPath(kGroup, kVersion, ns, kSchedulePlural, name);
}

}  // namespace

// The status context (kube/status_context.h) with what a schedule's
// reconcile adds.
struct ScheduleReconciler::Context : kube::StatusContext {
  // The runs this schedule created and has not seen go (status.runs and
  // created_).
  std::vector<RunRecord> recorded;
  // The server refused the status (writeStatus): look again within
  // kStatusRetry.
  bool statusRefused = false;
  api::DistBenchmarkSchedule schedule;
  // The pool, read once when first needed (readPool). poolConfigMap stays
  // null when the server refused to create it.
  bool poolRead = false;
  value poolConfigMap;
  std::vector<report::PooledRun> pool;

  bool poolIsOurs() const { return poolConfigMap.is_object() && isController(poolConfigMap, uid); }
};

ScheduleReconciler::ScheduleReconciler(kube::KubeClient& client, const kube::Informer& runs,
                                       Options options)
    : client_(client), runs_(runs), options_(std::move(options)) {}

bool ScheduleReconciler::firstTime(const Context& ctx, const std::string& memo) {
  std::lock_guard<std::mutex> lock(memoMutex_);
  std::string& last = memos_[ctx.key];
  if (last == memo) return false;
  last = memo;
  return true;
}

namespace {

bool holds(const std::vector<RunRecord>& records, const std::string& uid) {
  return std::any_of(records.begin(), records.end(),
                     [&](const RunRecord& r) { return r.uid == uid; });
}

void dropRecord(std::vector<RunRecord>& records, const std::string& uid) {
  records.erase(std::remove_if(records.begin(), records.end(),
                               [&](const RunRecord& r) { return r.uid == uid; }),
                records.end());
}

// status.lastRun for a settled run, before its rows.
value lastRunJson(const ScheduledRun& run) {
  value last = value::object();
  last["name"] = value::string(run.name);
  last["scheduledTime"] = value::string(kube::formatRfc3339(run.scheduledAt));
  last["phase"] = value::string(run.phase);
  if (run.finishedAt) last["finishedTime"] = value::string(kube::formatRfc3339(*run.finishedAt));
  if (!run.p50.empty()) last["p50"] = value::string(run.p50);
  last["verdict"] = value::string(run.verdict);
  if (!run.worstRow.empty()) last["worstRow"] = value::string(kube::boundedMessage(run.worstRow));
  return last;
}

// status.lastRun.rows: the run's rows, each beside the pool's median.
value rowsAgainstPool(const report::Report& runReport, const std::vector<report::PooledRun>& pool) {
  std::optional<report::Report> pooled;
  try {
    if (!pool.empty()) pooled = report::poolReports(report::reportsOf(pool));
  } catch (const report::ReportError&) {
    // A pool of another benchmark: the run starts a new one (joinPool).
  }
  return rowSummaries(runReport, pooled ? &*pooled : nullptr, kMaxStatusRows);
}

// What the run's comparison with the pool means for the pool.
report::PoolVerdict poolVerdictForRun(const ScheduledRun& run,
                                      const std::vector<report::PooledRun>& pool) {
  if (run.verdict == kVerdictRegression) return report::PoolVerdict::Regression;
  if (run.verdict == kVerdictNoRegression) return report::PoolVerdict::NoRegression;
  if (!pool.empty() &&
      (run.verdictReason == "BaselineIncomparable" || run.verdictReason == "NothingCompared")) {
    // Compared with the pool and nothing could be: another benchmark now.
    return report::PoolVerdict::Incomparable;
  }
  return report::PoolVerdict::NoBaseline;
}

std::string tooLargeMessage(const ScheduledRun& run, const PoolData& data,
                            const std::vector<report::PooledRun>& pool) {
  return "run " + run.name +
         " is not pooled: its report, trimmed for the pool, is in "
         "both runs.json and baseline.json, " +
         std::to_string(data.bytes) + " bytes, over the " + std::to_string(kMaxPoolDataBytes) +
         " bytes a pool ConfigMap may hold (a pooled run's trimmed report must stay "
         "under about half of that); the pool keeps its " +
         std::to_string(pool.size()) + " runs";
}

value runRef(const std::string& name, const std::string& uid) {
  value ref = value::object();
  ref["name"] = value::string(name);
  ref["uid"] = value::string(uid);
  return ref;
}

value activeJson(const std::vector<ScheduledRun>& active) {
  value out = value::array();
  for (const ScheduledRun& run : active) out[out.size()] = runRef(run.name, run.uid);
  return out;
}

}  // namespace

kube::Result ScheduleReconciler::reconcile(const std::string& key) {
  Context ctx;
  if (!ctx.open(client_, key, [](const std::string& ns, const std::string& name) {
        return schedulePath(ns, name);
      })) {
    // Its runs and pool go with it (the garbage collector).
    std::lock_guard<std::mutex> lock(memoMutex_);
    memos_.erase(key);
    created_.erase(key);
    return kube::Result::awaitChange();
  }
  if (ctx.deleting()) return kube::Result::awaitChange();
  ctx.stamp(options_.now());
  recallRecords(ctx);
  ScheduleObservation observed;

  try {
    // Parsed strictly and validated, the template as the runs it makes.
    ctx.schedule = api::parseDistBenchmarkSchedule(ctx.object.serialize());
    if (!options_.allowPrivilegedOverrides)
      api::requireRestrictedProfile(api::scheduledRun(ctx.schedule, ctx.now));
  } catch (const std::exception& e) {
    observed.invalid = std::string("invalid spec: ") + e.what();
  }
  if (!observed.invalid) {
    const api::ScheduleTiming& timing = *ctx.schedule.spec.timing;  // parsed by validation
    observed.nextFiring = [&timing](kube::SystemTime after) {
      return timing.cron.next(after, timing.zone);
    };
    observe(ctx, observed);
  }
  return carryOut(ctx, planSchedule(observed));
}

void ScheduleReconciler::recallRecords(Context& ctx) {
  ctx.recorded = runRecords(ctx.original);
  std::lock_guard<std::mutex> lock(memoMutex_);
  std::vector<RunRecord>& created = created_[ctx.key];
  // Those a written status holds are recorded there now.
  created.erase(std::remove_if(created.begin(), created.end(),
                               [&](const RunRecord& r) { return holds(ctx.recorded, r.uid); }),
                created.end());
  ctx.recorded.insert(ctx.recorded.end(), created.begin(), created.end());
}

void ScheduleReconciler::observe(Context& ctx, ScheduleObservation& observed) {
  // Valid before anything else is set: the conditions keep their order.
  setCondition(ctx.status, kCondValid, true, "Valid", "the schedule and its template are valid",
               ctx.nowText, ctx.generation);
  observed.spec = ctx.schedule.spec;
  observed.created =
      kube::parseRfc3339(kube::stringField(ctx.object.at("metadata"), "creationTimestamp"))
          .value_or(ctx.now);
  observed.lastScheduleTime = kube::parseRfc3339(kube::stringField(ctx.status, "lastScheduleTime"));
  observed.lastRunScheduled =
      kube::parseRfc3339(kube::stringField(ctx.status, "lastRun", "scheduledTime"))
          .value_or(kube::SystemTime{});
  observed.runs = currentRuns(ctx);
  observed.recorded = ctx.recorded;
  observed.now = ctx.now;
  observed.maxWait = options_.maxWait;
}

kube::Result ScheduleReconciler::carryOut(Context& ctx, const SchedulePlan& plan) {
  if (plan.invalid) return refuseSpec(ctx, *plan.invalid);
  const api::ScheduleSpec& spec = ctx.schedule.spec;
  for (const ScheduledRun& run : plan.account) account(ctx, run);
  // Its children (report ConfigMap included) go with it.
  for (const ScheduledRun& run : plan.prune) deleteRun(ctx, run);
  ctx.status["active"] = activeJson(plan.active);
  if (plan.next) {
    ctx.status["nextScheduleTime"] = value::string(kube::formatRfc3339(*plan.next));
  } else if (ctx.status.has_field("nextScheduleTime")) {
    ctx.status.erase("nextScheduleTime");
  }
  if (plan.missed) sayOnce(ctx, *plan.missed);
  startDue(ctx, plan);

  if (ctx.poolRead) {
    value summary = value::object();
    summary["configMap"] = value::string(api::scheduleBaselineConfigMapName(ctx.name));
    value names = value::array();
    for (const report::PooledRun& p : ctx.pool) names[names.size()] = value::string(p.name);
    summary["runs"] = names;
    summary["thresholdPercent"] = value::number(spec.baseline.thresholdPercent);
    ctx.status["baseline"] = summary;
  }
  ctx.status["runs"] = runRecordsJson(ctx.recorded);
  if (!writeStatus(ctx)) return kube::Result::retry();
  if (!plan.wait)
    return ctx.statusRefused ? kube::Result::after(kStatusRetry) : kube::Result::awaitChange();
  // A refused status is tried again within kStatusRetry.
  return kube::Result::after(ctx.statusRefused
                                 ? std::min(*plan.wait, std::chrono::milliseconds(kStatusRetry))
                                 : *plan.wait);
}

kube::Result ScheduleReconciler::refuseSpec(Context& ctx, const std::string& message) {
  if (setConditionStatus(ctx.status, kCondValid, "False", "InvalidSpec", message, ctx.nowText,
                         ctx.generation))
    ctx.events.push_back({true, "InvalidSpec", message});
  ctx.status["runs"] = runRecordsJson(ctx.recorded);
  if (!writeStatus(ctx)) return kube::Result::retry();
  return ctx.statusRefused ? kube::Result::after(kStatusRetry) : kube::Result::awaitChange();
}

void ScheduleReconciler::sayOnce(Context& ctx, const OnceEvent& event) {
  if (firstTime(ctx, event.memo))
    ctx.events.push_back({event.warning, event.reason, event.message});
}

void ScheduleReconciler::deleteRun(Context& ctx, const ScheduledRun& run) {
  kube::DeleteOptions o;
  o.uid = run.uid;
  client_.remove(benchmarksPath(ctx.ns, run.name), o);
  forget(ctx, run.uid);
}

void ScheduleReconciler::startDue(Context& ctx, const SchedulePlan& plan) {
  using Start = SchedulePlan::Start;
  switch (plan.start) {
    case Start::None:
      return;
    case Start::Recorded:
      ctx.status["lastScheduleTime"] = value::string(kube::formatRfc3339(*plan.due));
      return;
    case Start::Skip:
      sayOnce(ctx, *plan.skipped);
      return;
    case Start::Create:
      for (const ScheduledRun& run : plan.replace) {
        deleteRun(ctx, run);
        ctx.events.push_back({false, "RunReplaced",
                              "deleted active run " + run.name +
                                  " (concurrencyPolicy Replace) for the run due at " +
                                  kube::formatRfc3339(*plan.due)});
      }
      startRun(ctx, *plan.due);
      return;
  }
}

std::vector<ScheduledRun> ScheduleReconciler::currentRuns(Context& ctx) {
  std::vector<value> objects;
  std::vector<std::string> gone;
  for (const RunRecord& record : ctx.recorded) {
    std::optional<value> found = runs_.get(ctx.ns + "/" + record.name);
    if (!found || kube::stringField(found->at("metadata"), "uid") != record.uid) {
      // Created a moment ago and not cached yet, or gone: the server says
      // which. Without this, a reconcile right after a create would start
      // the run again, or another beside it under Forbid.
      found.reset();
      try {
        value v = client_.get(benchmarksPath(ctx.ns, record.name));
        if (kube::stringField(v.at("metadata"), "uid") == record.uid) found = std::move(v);
      } catch (const kube::KubeApiError& e) {
        if (!e.notFound()) throw;
      }
    }
    if (!found) {
      // Gone (history limits, Replace, a person, its TTL): its name may be
      // anyone's now.
      gone.push_back(record.uid);
      continue;
    }
    objects.push_back(std::move(*found));
  }
  for (const std::string& uid : gone) forget(ctx, uid);
  return scheduledRuns(objects, ctx.uid, ctx.recorded);
}

void ScheduleReconciler::forget(Context& ctx, const std::string& uid) {
  dropRecord(ctx.recorded, uid);
  std::lock_guard<std::mutex> lock(memoMutex_);
  dropRecord(created_[ctx.key], uid);
}

const std::vector<report::PooledRun>& ScheduleReconciler::readPool(Context& ctx) {
  if (ctx.poolRead) return ctx.pool;
  ctx.poolRead = true;
  const std::string name = api::scheduleBaselineConfigMapName(ctx.name);
  try {
    ctx.poolConfigMap = client_.get(kube::corePath(ctx.ns, "configmaps", name));
    std::string problem;
    // Someone else's ConfigMap of that name holds no pool of ours.
    if (ctx.poolIsOurs()) ctx.pool = poolFromConfigMap(ctx.poolConfigMap, &problem);
    if (!problem.empty())
      ctx.events.push_back(
          {true, "BaselineDamaged",
           "the pool in ConfigMap " + name + " cannot be read (" + problem + "); it starts again"});
  } catch (const kube::KubeApiError& e) {
    if (!e.notFound()) throw;
    // Made empty with the first run, so that it is there to look at (and
    // every later change is an update of it).
    std::vector<report::PooledRun> none;
    try {
      ctx.poolConfigMap =
          client_.create(kube::corePath(ctx.ns, "configmaps"),
                         desiredBaselineConfigMap(ctx.ns, ctx.name, ctx.uid, *poolData(none).data));
    } catch (const kube::KubeApiError& refusal) {
      // Made meanwhile, or no answer: read again on the retry.
      if (refusal.conflict() || refusal.code() == 0) throw;
      poolNotStored(ctx, "PoolWriteRefused", "PoolWriteRefused",
                    "the API server refused to create ConfigMap " + ctx.ns + "/" + name + " (" +
                        std::to_string(refusal.code()) + ": " + refusal.what() +
                        "): no rolling baseline is kept until it takes it");
    }
  }
  return ctx.pool;
}

void ScheduleReconciler::poolNotStored(Context& ctx, const std::string& reason,
                                       const std::string& event, const std::string& message) {
  setConditionStatus(ctx.status, kCondBaselineStored, "False", reason, message, ctx.nowText,
                     ctx.generation);
  ctx.events.push_back({true, event, kube::boundedMessage(message)});
}

void ScheduleReconciler::account(Context& ctx, const ScheduledRun& run) {
  value last = lastRunJson(run);
  if (!run.succeeded) {
    const int64_t failures = kube::intField(ctx.status, "consecutiveFailures", 0) + 1;
    ctx.status["consecutiveFailures"] = value::number(failures);
    ctx.status["lastRun"] = last;
    ctx.events.push_back({true, "RunFailed",
                          "run " + run.name + " failed (" + std::to_string(failures) +
                              " in a row): " + run.message});
    return;
  }
  ctx.status["consecutiveFailures"] = value::number(0);
  ctx.status["lastSuccessfulTime"] =
      value::string(kube::formatRfc3339(run.finishedAt.value_or(ctx.now)));

  const std::vector<report::PooledRun>& pool = readPool(ctx);
  const std::optional<report::Report> runReport = readRunReport(ctx, run);
  if (runReport) last["rows"] = rowsAgainstPool(*runReport, pool);
  ctx.status["lastRun"] = last;

  const report::PoolVerdict verdict = poolVerdictForRun(run, pool);
  if (verdict == report::PoolVerdict::Regression) {
    ctx.events.push_back({true, "RegressionDetected",
                          "run " + run.name + " regressed against the pool of the last " +
                              std::to_string(pool.size()) + " runs: " + run.verdictMessage +
                              " (it does not join the pool)"});
    return;
  }
  ctx.events.push_back({false, "RunSucceeded", "run " + run.name + ": " + run.verdict +
                                                   (run.p50.empty() ? "" : ", p50 " + run.p50)});
  if (runReport) joinPool(ctx, run, *runReport, verdict);
}

std::optional<report::Report> ScheduleReconciler::readRunReport(Context& ctx,
                                                                const ScheduledRun& run) {
  if (!run.reportStored) return std::nullopt;
  try {
    const value cm =
        client_.get(kube::corePath(ctx.ns, "configmaps", api::reportConfigMapName(run.name)));
    const std::string json = kube::stringField(cm, "data", api::kReportKey);
    if (!json.empty()) return report::parseReport(json, run.name);
  } catch (const kube::KubeApiError& e) {
    if (!e.notFound()) throw;
  } catch (const report::ReportError&) {
    // Stored, then edited into something unreadable: not pooled.
  }
  return std::nullopt;
}

void ScheduleReconciler::joinPool(Context& ctx, const ScheduledRun& run,
                                  const report::Report& runReport, report::PoolVerdict verdict) {
  const std::vector<report::PooledRun>& pool = ctx.pool;
  for (const report::PooledRun& p : pool)
    if (p.name == run.name) return;
  const report::PoolStep step =
      report::nextPool(pool, {run.name, runReport}, verdict, ctx.schedule.spec.baseline.runs);
  if (!step.entered) return;
  // Into the pool before the status that records it: a status write lost
  // to a conflict finds the run already pooled and does not add it twice.
  std::vector<report::PooledRun> next = step.pool;
  const PoolData data = poolData(next);
  if (!data.data) {
    poolNotStored(ctx, "ReportTooLarge", "BaselineTooLarge", tooLargeMessage(run, data, pool));
    return;
  }
  // Its create was refused: said so then.
  if (!ctx.poolConfigMap.is_object()) return;
  if (!ctx.poolIsOurs()) {
    if (firstTime(ctx, "pool conflict"))
      ctx.events.push_back({true, "NameConflict",
                            "ConfigMap " + ctx.ns + "/" +
                                api::scheduleBaselineConfigMapName(ctx.name) +
                                " exists and is not this schedule's: no rolling baseline is kept "
                                "until it is deleted"});
    return;
  }
  if (!writePool(ctx, run, *data.data)) return;
  if (step.restarted)
    ctx.events.push_back({false, "BaselineRestarted",
                          "run " + run.name + " measured something else than the pooled runs (" +
                              run.verdictMessage + "); the pool starts again from it"});
  setCondition(ctx.status, kCondBaselineStored, true, "Stored",
               "run " + run.name + " joined the pool (" + std::to_string(next.size()) + " runs)",
               ctx.nowText, ctx.generation);
  ctx.pool = next;
}

bool ScheduleReconciler::writePool(Context& ctx, const ScheduledRun& run, const value& data) {
  const std::string poolName = api::scheduleBaselineConfigMapName(ctx.name);
  value cm = desiredBaselineConfigMap(ctx.ns, ctx.name, ctx.uid, data);
  cm["metadata"]["resourceVersion"] = ctx.poolConfigMap.at("metadata").at("resourceVersion");
  try {
    ctx.poolConfigMap = client_.replace(kube::corePath(ctx.ns, "configmaps", poolName), cm);
  } catch (const kube::KubeApiError& e) {
    // A conflict or no answer is tried again; anything else the server
    // would answer the same way next time, and must not keep the schedule
    // from its next firing: the run is accounted without joining the pool.
    if (e.conflict() || e.code() == 0) throw;
    poolNotStored(ctx, "PoolWriteRefused", "PoolWriteRefused",
                  "run " + run.name +
                      " is not pooled: the API server refused to update ConfigMap " + ctx.ns + "/" +
                      poolName + " (" + std::to_string(e.code()) + ": " + e.what() + ")");
    return false;
  }
  return true;
}

void ScheduleReconciler::startRun(Context& ctx, kube::SystemTime at) {
  const api::ScheduleSpec& spec = ctx.schedule.spec;
  api::DistBenchmark run = api::scheduledRun(ctx.schedule, at);
  const std::vector<report::PooledRun>& pool = readPool(ctx);
  // Judged once the pool can say how much runs differ (poolJudges); a
  // ConfigMap of that name that is not ours is never named as a baseline.
  if (report::poolJudges(pool, spec.baseline.runs) && ctx.poolIsOurs()) {
    api::Baseline baseline;
    baseline.configMap = api::ConfigMapKeyRef{api::scheduleBaselineConfigMapName(ctx.name),
                                              kPoolBaselineKey};
    baseline.thresholdPercent = spec.baseline.thresholdPercent;
    run.spec.baseline = baseline;
  }
  std::string taken;
  const value made = createRun(ctx, run, &taken);
  const RunRecord record{kube::stringField(made.at("metadata"), "name"),
                         kube::stringField(made.at("metadata"), "uid"), at};
  ctx.recorded.push_back(record);
  {
    std::lock_guard<std::mutex> lock(memoMutex_);
    created_[ctx.key].push_back(record);
  }
  if (!taken.empty())
    ctx.events.push_back({true, "RunNameTaken",
                          "DistBenchmark " + ctx.ns + "/" + taken +
                              " exists and was not created by this schedule; the run due at " +
                              kube::formatRfc3339(at) + " starts as " + record.name});
  ctx.status["lastScheduleTime"] = value::string(kube::formatRfc3339(at));
  ctx.status["active"][ctx.status["active"].size()] = runRef(record.name, record.uid);
  ctx.events.push_back({false, "RunStarted",
                        "started run " + record.name + " (due at " + kube::formatRfc3339(at) + ")" +
                            (run.spec.baseline ? ", against the pool of the last " +
                                                     std::to_string(pool.size()) + " runs"
                                               : ", with no baseline yet")});
}

value ScheduleReconciler::createRun(Context& ctx, const api::DistBenchmark& run,
                                    std::string* taken) {
  const std::string runName = run.metadata.name;
  value body = benchmarkObject(run, scheduleOwnerReference(ctx.name, ctx.uid));
  try {
    return client_.create(benchmarksPath(ctx.ns), body);
  } catch (const kube::KubeApiError& e) {
    if (!e.alreadyExists()) throw;
  }
  // Not a run of ours: those were found by their firing (planSchedule).
  // Anyone may create a DistBenchmark named after the next firing (it is in
  // status.nextScheduleTime); the run starts under a name the server makes
  // up, no shorter than the one it was due to get.
  *taken = runName;
  body["metadata"].erase("name");
  body["metadata"]["generateName"] = value::string(ctx.name + "-");
  return client_.create(benchmarksPath(ctx.ns), body);
}

bool ScheduleReconciler::writeStatus(Context& ctx) {
  // The rows' times come from reports the parser bounded; this catches
  // whatever slips past (finite_status.h).
  if (std::optional<kube::StatusEvent> dropped = dropNonFiniteStatusNumbers(ctx.status))
    ctx.events.push_back(*dropped);
  if (ctx.status == ctx.original) {
    // Some Events carry no status change (a skipped firing): they are
    // remembered (firstTime) rather than recorded in status.
    ctx.flushEvents(options_.onEvent);
    return true;
  }
  std::string refusal;
  try {
    if (!ctx.replaceStatus(client_)) return false;
  } catch (const kube::KubeApiError& e) {
    // No answer: the API server is away; tried again with backoff.
    if (e.code() == 0) throw;
    refusal = std::to_string(e.code()) + ": " + e.what();
  }
  if (!refusal.empty()) {
    // Refused (validation, size, an admission webhook): the same status
    // would be refused again, and throwing would hold the schedule in
    // backoff, past its firings. lastRun.rows carries the report's names
    // and numbers: without them, then without the status at all.
    value* lastRun = ctx.status.has_field("lastRun") ? &ctx.status["lastRun"] : nullptr;
    if (lastRun != nullptr && lastRun->has_field("rows")) {
      lastRun->erase("rows");
      try {
        if (!ctx.replaceStatus(client_)) return false;
        ctx.events.push_back(
            {true, "StatusRefused",
             kube::boundedMessage("the API server refused the schedule's status (" + refusal +
                                  "); it is written without lastRun.rows")});
        refusal.clear();
      } catch (const kube::KubeApiError& e) {
        if (e.code() == 0) throw;
      }
    }
  }
  if (!refusal.empty()) {
    // Not written: the runs created are remembered (created_) until a
    // status that records them lands; the other Events would be sent again
    // with every try, and wait for it.
    ctx.statusRefused = true;
    ctx.events.clear();
    if (firstTime(ctx, "status refused " + refusal) && options_.onEvent)
      options_.onEvent(
          ctx.object, true, "StatusRefused",
          kube::boundedMessage("the API server refused the schedule's status (" + refusal +
                               "); runs still start at their firings, and it is tried "
                               "again"));
    return true;
  }
  ctx.original = ctx.status;
  {
    // Recorded in the status now.
    std::lock_guard<std::mutex> lock(memoMutex_);
    const std::vector<RunRecord> written = runRecords(ctx.status);
    std::vector<RunRecord>& created = created_[ctx.key];
    created.erase(std::remove_if(created.begin(), created.end(),
                                 [&](const RunRecord& r) { return holds(written, r.uid); }),
                  created.end());
  }
  ctx.flushEvents(options_.onEvent);
  return true;
}

}  // namespace distbench::op
