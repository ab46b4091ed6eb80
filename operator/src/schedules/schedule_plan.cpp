#include "distbench/operator/schedules/schedule_plan.h"

#include <algorithm>

namespace distbench::op {
namespace {

using std::chrono::milliseconds;

void planAccounting(const ScheduleObservation& o, SchedulePlan& plan) {
  const kube::SystemTime fired = o.lastScheduleTime.value_or(kube::SystemTime{});
  const kube::SystemTime accounted = accountedUpTo(o.lastRunScheduled, fired);
  for (const ScheduledRun& run : o.runs)
    if (run.settled && run.scheduledAt > accounted) plan.account.push_back(run);
  // Accounting a run makes it status.lastRun: the history limits count
  // what is accounted once that is done.
  const kube::SystemTime lastRun =
      plan.account.empty() ? o.lastRunScheduled : plan.account.back().scheduledAt;
  const kube::SystemTime accountedAfter = accountedUpTo(lastRun, fired);
  std::vector<const ScheduledRun*> succeeded, failed;
  for (const ScheduledRun& run : o.runs) {
    if (!run.settled || run.deleting || run.scheduledAt > accountedAfter) continue;
    (run.succeeded ? succeeded : failed).push_back(&run);
  }
  auto prune = [&](const std::vector<const ScheduledRun*>& list, int limit) {
    const std::size_t keep = static_cast<std::size_t>(std::max(limit, 0));
    for (std::size_t i = 0; i + keep < list.size(); ++i) plan.prune.push_back(*list[i]);
  };
  prune(succeeded, o.spec.successfulRunsHistoryLimit);
  prune(failed, o.spec.failedRunsHistoryLimit);
  for (const ScheduledRun& run : o.runs)
    if (!run.finished() && !run.deleting) plan.active.push_back(run);
}

bool pruned(const SchedulePlan& plan, const std::string& uid) {
  return std::any_of(plan.prune.begin(), plan.prune.end(),
                     [&](const ScheduledRun& r) { return r.uid == uid; });
}

// What the firing due at `at` becomes, as concurrencyPolicy allows.
void planStart(const ScheduleObservation& o, kube::SystemTime at, SchedulePlan& plan) {
  plan.due = at;
  // A reconcile that created it and then lost its status write finds it
  // (the records of runs created since), under whatever name it got.
  for (const RunRecord& record : o.recorded)
    if (record.scheduledAt == at && !pruned(plan, record.uid)) {
      plan.start = SchedulePlan::Start::Recorded;
      return;
    }
  if (!plan.active.empty()) {
    if (o.spec.concurrencyPolicy == api::ConcurrencyPolicy::Forbid) {
      plan.start = SchedulePlan::Start::Skip;
      plan.skipped = OnceEvent{"skipped " + kube::formatRfc3339(at), false, "RunSkipped",
                               "the run due at " + kube::formatRfc3339(at) + " waits: run " +
                                   plan.active.front().name +
                                   " is still active (concurrencyPolicy Forbid); it starts when "
                                   "that run ends, if within startingDeadlineSeconds"};
      return;
    }
    plan.replace = plan.active;  // Replace
  }
  plan.start = SchedulePlan::Start::Create;
}

OnceEvent missedEvent(const ScheduleTiming& timing, std::optional<std::chrono::seconds> deadline) {
  return OnceEvent{"missed " + kube::formatRfc3339(*timing.missed), true, "MissedSchedule",
                   "missed the run due at " + kube::formatRfc3339(*timing.missed) + " (" +
                       std::to_string(timing.firingsSince) +
                       " firings since the last run): it is past startingDeadlineSeconds (" +
                       std::to_string(deadline ? deadline->count() : 0) +
                       "s); was the operator down? The next run is at " +
                       (timing.next ? kube::formatRfc3339(*timing.next) : std::string("never"))};
}

// A little after the firing, so that the clock has passed it.
milliseconds waitFor(kube::SystemTime next, kube::SystemTime now, milliseconds most) {
  auto wait = std::chrono::duration_cast<milliseconds>(next - now) + milliseconds(100);
  if (wait.count() < 100) wait = milliseconds(100);
  return std::min(wait, most);
}

}  // namespace

kube::SystemTime accountedUpTo(kube::SystemTime lastRunScheduled,
                               kube::SystemTime lastScheduleTime) {
  return lastRunScheduled > lastScheduleTime ? kube::SystemTime{} : lastRunScheduled;
}

SchedulePlan planSchedule(const ScheduleObservation& o) {
  SchedulePlan plan;
  if (o.invalid) {
    plan.invalid = o.invalid;
    return plan;
  }
  planAccounting(o, plan);
  std::optional<std::chrono::seconds> deadline;
  if (o.spec.startingDeadlineSeconds)
    deadline = std::chrono::seconds(*o.spec.startingDeadlineSeconds);
  const ScheduleTiming timing =
      scheduleTiming(o.nextFiring, o.lastScheduleTime.value_or(o.created), o.now, deadline);
  plan.next = timing.next;
  if (o.spec.suspend) return plan;
  if (timing.missed) plan.missed = missedEvent(timing, deadline);
  if (timing.due) planStart(o, *timing.due, plan);
  if (timing.next) plan.wait = waitFor(*timing.next, o.now, o.maxWait);
  return plan;
}

}  // namespace distbench::op
