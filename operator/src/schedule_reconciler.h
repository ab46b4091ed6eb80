// One DistBenchmarkSchedule's reconcile, as the CronJob controller does it
// for Jobs, plus the rolling baseline: read the schedule fresh, take stock
// of its runs (cached DistBenchmarks it controls), account each run that
// has settled since the last reconcile (status.lastRun, the failure count,
// the pool of schedule_baseline.h), delete runs past the history limits,
// then start the run that is due (schedule_timing.h) as concurrencyPolicy
// allows. Idempotent like the benchmark reconciler: the pool is written
// before the status that records it, and a run joins the pool once.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "distbench/kube/informer.h"
#include "distbench/kube/kube_client.h"
#include "distbench/kube/reconcile_result.h"
#include "distbench/kube/rfc3339.h"
#include "distbench/operator/reconciler.h"
#include "distbench/operator/schedule_runs.h"

namespace distbench::op {

inline constexpr const char* kSchedulePlural = "distbenchmarkschedules";

// Condition on a schedule: whether its spec can be run (False: InvalidSpec).
inline constexpr const char* kCondValid = "Valid";

class ScheduleReconciler {
 public:
  struct Options {
    Reconciler::EventSink onEvent;
    std::function<SystemTime()> now = [] { return std::chrono::system_clock::now(); };
    // As for benchmarks: a template relaxing Pod Security "restricted" is
    // refused unless the operator allows it.
    bool allowPrivilegedOverrides = false;
    // The longest wait before a schedule is looked at again when nothing
    // changes: a yearly schedule still notices a wall-clock step.
    std::chrono::milliseconds maxWait = std::chrono::hours(1);
  };

  // `runs`: the DistBenchmarks carrying kScheduleLabel; must outlive this.
  ScheduleReconciler(KubeClient& client, const Informer& runs, Options options);

  // `key`: "namespace/name". Throws KubeApiError (retried with backoff).
  Result reconcile(const std::string& key);

 private:
  struct Context;

  // The schedule's runs: the cache's, and those status.active names that
  // the cache has not seen yet, read from the server.
  std::vector<ScheduledRun> currentRuns(Context& ctx);
  // Takes stock of a run that settled: status.lastRun, counts, the pool.
  void account(Context& ctx, const ScheduledRun& run);
  // Deletes finished runs past the history limits (accounted ones only).
  void pruneHistory(Context& ctx, const std::vector<ScheduledRun>& runs);
  // Starts the run due at `at`, as concurrencyPolicy allows.
  void startRun(Context& ctx, SystemTime at, const std::vector<ScheduledRun>& active);
  // Writes the status if it changed (false on a conflict), then the Events.
  bool writeStatus(Context& ctx);
  void sendEvents(Context& ctx);
  // An Event once per schedule and `memo` (a missed or skipped firing).
  bool firstTime(const Context& ctx, const std::string& memo);

  KubeClient& client_;
  const Informer& runs_;
  Options options_;
  std::mutex memoMutex_;
  std::map<std::string, std::string> memos_;  // "<ns>/<name>" -> last memo
};

}  // namespace distbench::op
