// One DistBenchmarkSchedule's reconcile decided, as planGang decides a
// gang's (benchmarks/gang_plan.h) and kube-rs's reconcile returns an
// action: from the schedule's spec, its runs as observed, what its status
// says was done and the clock, which settled runs to account, which to
// delete past the history limits, whether a run starts now (and what
// concurrencyPolicy makes of the runs still active), what status.active
// and status.nextScheduleTime become, which Events to say once, and when
// to look again. Pure: the ScheduleReconciler reads (schedule, runs,
// pool) and carries the plan out, and a table test drives this without an
// API server (operator/tests/schedules/schedule_plan_test.cpp).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "distbench/api/schedule_spec.h"
#include "distbench/kube/rfc3339.h"
#include "distbench/operator/schedules/schedule_runs.h"
#include "distbench/operator/schedules/schedule_timing.h"

namespace distbench::op {

struct ScheduleObservation {
  // "invalid spec: ..." when the schedule, its cron, its time zone or its
  // template was refused; nothing else is read then.
  std::optional<std::string> invalid;
  api::ScheduleSpec spec;
  NextFiring nextFiring;     // in the schedule's time zone
  kube::SystemTime created;  // metadata.creationTimestamp
  // status.lastScheduleTime, and status.lastRun.scheduledTime ({} unset).
  std::optional<kube::SystemTime> lastScheduleTime;
  kube::SystemTime lastRunScheduled{};
  // The runs the schedule created (status.runs and those created since)
  // and what became of them, oldest first (schedule_runs.h).
  std::vector<RunRecord> recorded;
  std::vector<ScheduledRun> runs;
  kube::SystemTime now;
  // The longest wait before a look again when nothing changes.
  std::chrono::milliseconds maxWait = std::chrono::hours(1);
};

// An Event said once per schedule and memo (a missed or skipped firing is
// found again by every reconcile until the next one).
struct OnceEvent {
  std::string memo;
  bool warning = false;
  std::string reason, message;
};

struct SchedulePlan {
  // Not Valid: the condition False with this message, and nothing else.
  std::optional<std::string> invalid;
  // Settled runs not yet accounted, oldest first.
  std::vector<ScheduledRun> account;
  // Accounted runs past successfulRunsHistoryLimit, then past
  // failedRunsHistoryLimit, oldest first: deleted.
  std::vector<ScheduledRun> prune;
  // Runs neither finished nor being deleted: status.active.
  std::vector<ScheduledRun> active;
  // status.nextScheduleTime; none: removed.
  std::optional<kube::SystemTime> next;
  // The latest firing was past startingDeadlineSeconds (not while suspended).
  std::optional<OnceEvent> missed;

  enum class Start {
    None,      // nothing due, or suspended
    Recorded,  // a run of the due firing exists already: lastScheduleTime only
    Skip,      // concurrencyPolicy Forbid with a run active: `skipped`
    Create,    // create the run due, after deleting `replace`
  };
  Start start = Start::None;
  std::optional<kube::SystemTime> due;  // the firing `start` is about
  std::optional<OnceEvent> skipped;
  // concurrencyPolicy Replace: the active runs deleted before the create.
  std::vector<ScheduledRun> replace;

  // When to look again: a little after the next firing, at most maxWait;
  // none (suspended, never fires again, invalid) awaits a change.
  std::optional<std::chrono::milliseconds> wait;
};

// The firing up to which runs are accounted: status.lastRun's. No run the
// schedule created is later than its last firing; a later lastRun was never
// its run (a forged one, accounted by an operator that predates
// status.runs) and says nothing of what is accounted: believed, it would
// keep every real run from being accounted. {} for unset times.
kube::SystemTime accountedUpTo(kube::SystemTime lastRunScheduled,
                               kube::SystemTime lastScheduleTime);

SchedulePlan planSchedule(const ScheduleObservation& observed);

}  // namespace distbench::op
