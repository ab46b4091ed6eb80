// One DistBenchmarkSchedule's reconcile, as the CronJob controller does it
// for Jobs, plus the rolling baseline: read the schedule fresh, take stock
// of its runs (the DistBenchmarks it created, recorded by UID in
// status.runs: schedule_runs.h), account each run that has settled since
// the last reconcile (status.lastRun, the failure count, the pool of
// schedule_baseline.h), delete runs past the history limits, then start the
// run that is due (schedule_timing.h) as concurrencyPolicy allows: what to
// do is decided by planSchedule (schedule_plan.h), pure; this reads what it
// decides on and carries the plan out.
// Idempotent like the benchmark reconciler: the pool is written before the
// status that records it, and a run joins the pool once. A write the API
// server refuses (the pool, the status) is a condition or an Event, never
// an error that stops the firings.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "distbench/kube/informer.h"
#include "distbench/kube/kube_client.h"
#include "distbench/kube/reconcile_result.h"
#include "distbench/kube/rfc3339.h"
#include "distbench/operator/benchmarks/reconciler.h"
#include "distbench/operator/common/crd_names.h"
#include "distbench/operator/schedules/schedule_plan.h"
#include "distbench/operator/schedules/schedule_runs.h"
#include "distbench/report/baseline_pool.h"
#include "distbench/report/report.h"

namespace distbench::op {

// Condition on a schedule: whether its spec can be run (False: InvalidSpec).
inline constexpr const char* kCondValid = "Valid";
// Condition on a schedule: whether the last run meant for the pool is in
// it (False: ReportTooLarge, PoolWriteRefused).
inline constexpr const char* kCondBaselineStored = "BaselineStored";

class ScheduleReconciler {
 public:
  struct Options {
    kube::EventSink onEvent;
    std::function<kube::SystemTime()> now = [] { return std::chrono::system_clock::now(); };
    // As for benchmarks: a template relaxing Pod Security "restricted" is
    // refused unless the operator allows it.
    bool allowPrivilegedOverrides = false;
    // The longest wait before a schedule is looked at again when nothing
    // changes: a yearly schedule still notices a wall-clock step.
    std::chrono::milliseconds maxWait = std::chrono::hours(1);
  };

  // `runs`: the DistBenchmarks carrying kScheduleLabel; must outlive this.
  ScheduleReconciler(kube::KubeClient& client, const kube::Informer& runs, Options options);

  // `key`: "namespace/name". Throws KubeApiError (retried with backoff).
  kube::Result reconcile(const std::string& key);

 private:
  struct Context;

  // ctx.recorded: status.runs and the runs created since that no written
  // status holds yet (created_).
  void recallRecords(Context& ctx);
  // What planSchedule decides on: the spec, the status's times, the runs.
  void observe(Context& ctx, ScheduleObservation& observed);
  // The one place a SchedulePlan is carried out, in its order: account,
  // prune, status.active and nextScheduleTime, the Events, the run due;
  // then the status written.
  kube::Result carryOut(Context& ctx, const SchedulePlan& plan);
  // Valid False (InvalidSpec) and nothing else.
  kube::Result refuseSpec(Context& ctx, const std::string& message);
  // The schedule's recorded runs as they are now: from the cache, else
  // from the server (created a moment ago, or gone). Records of runs that
  // are gone are dropped.
  std::vector<ScheduledRun> currentRuns(Context& ctx);
  // Takes stock of a run that settled: status.lastRun, counts, the pool.
  void account(Context& ctx, const ScheduledRun& run);
  // The report a run stored (its <run>-report ConfigMap), if it can be read.
  std::optional<report::Report> readRunReport(Context& ctx, const ScheduledRun& run);
  // A run that succeeded joins the pool (report::nextPool), which is
  // written before the status that records it.
  void joinPool(Context& ctx, const ScheduledRun& run, const report::Report& runReport,
                report::PoolVerdict verdict);
  // Replaces the pool's ConfigMap data; false when the server refused it.
  bool writePool(Context& ctx, const ScheduledRun& run, const web::json::value& data);
  // The plan's Start: lastScheduleTime, a skip said once, or the run
  // created (after the runs Replace deletes).
  void startDue(Context& ctx, const SchedulePlan& plan);
  // Creates the run due at `at`, against the pool once it judges.
  void startRun(Context& ctx, kube::SystemTime at);
  // Creates `run`; under a generated name when its own is someone else's
  // (then `taken` is that name).
  web::json::value createRun(Context& ctx, const api::DistBenchmark& run, std::string* taken);
  // Deletes a run (its UID the precondition) and forgets its record.
  void deleteRun(Context& ctx, const ScheduledRun& run);
  // An Event once per schedule and memo.
  void sayOnce(Context& ctx, const OnceEvent& event);
  // Writes the status if it changed (false on a conflict), then the Events.
  // A status the server refuses is retried without lastRun.rows, then left
  // (a Warning, ctx.statusRefused): the runs created meanwhile are kept in
  // created_ until a status that records them lands.
  bool writeStatus(Context& ctx);
  // The pool's runs, read (or its ConfigMap created empty) once.
  const std::vector<report::PooledRun>& readPool(Context& ctx);
  // A run that is gone, or deleted now: out of the record.
  void forget(Context& ctx, const std::string& uid);
  // The pool could not take a run: the condition, and a Warning.
  void poolNotStored(Context& ctx, const std::string& reason, const std::string& event,
                     const std::string& message);
  // An Event once per schedule and `memo` (a missed or skipped firing).
  bool firstTime(const Context& ctx, const std::string& memo);

  kube::KubeClient& client_;
  const kube::Informer& runs_;
  Options options_;
  std::mutex memoMutex_;
  std::map<std::string, std::string> memos_;  // "<ns>/<name>" -> last memo
  // "<ns>/<name>" -> runs created whose record no written status holds
  // yet (a status write lost to a conflict, or refused): without them the
  // next reconcile would take its own run for someone else's.
  std::map<std::string, std::vector<RunRecord>> created_;
};

}  // namespace distbench::op
