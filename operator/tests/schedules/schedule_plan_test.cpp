// A schedule's reconcile as a table: from the spec, the runs observed, the
// status's times and the clock, what planSchedule decides (which runs are
// accounted and pruned, whether one starts and what concurrencyPolicy does
// to the active ones, which Events, when to look again). No API server.
#include "distbench/operator/schedules/schedule_plan.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "distbench/api/cron_schedule.h"

namespace distbench::op {
namespace {

using namespace std::chrono_literals;
using Start = SchedulePlan::Start;

// 2026-11-26T00:00:00Z, a whole hour.
const kube::SystemTime kT0 = kube::SystemTime(std::chrono::seconds(1795651200));

// Fires at every whole hour, as "0 * * * *" does in UTC.
std::optional<kube::SystemTime> hourly(kube::SystemTime after) {
  const auto s = std::chrono::duration_cast<std::chrono::seconds>(after.time_since_epoch());
  return kube::SystemTime((s / 3600s + 1) * 3600s);
}

ScheduledRun run(const std::string& name, kube::SystemTime at, const std::string& phase,
                 bool settled = true) {
  ScheduledRun r;
  r.name = name;
  r.uid = "u-" + name;
  r.scheduledAt = at;
  r.phase = phase;
  r.settled = settled && (phase == "Succeeded" || phase == "Failed");
  r.succeeded = phase == "Succeeded";
  return r;
}

// A schedule created at kT0, last fired at kT0 + 1 h (its run, "r1",
// accounted), looked at `now`.
ScheduleObservation observation(kube::SystemTime now) {
  ScheduleObservation o;
  o.nextFiring = hourly;
  o.created = kT0;
  o.lastScheduleTime = kT0 + 1h;
  o.lastRunScheduled = kT0 + 1h;
  o.recorded = {{"r1", "u-r1", kT0 + 1h}};
  o.runs = {run("r1", kT0 + 1h, "Succeeded")};
  o.now = now;
  return o;
}

std::vector<std::string> names(const std::vector<ScheduledRun>& runs) {
  std::vector<std::string> out;
  for (const ScheduledRun& r : runs) out.push_back(r.name);
  return out;
}

struct Case {
  std::string name;
  std::function<void(ScheduleObservation&)> given;
  // What the plan must say.
  Start start = Start::None;
  std::optional<kube::SystemTime> due;
  std::vector<std::string> account, prune, active, replace;
  std::optional<std::string> missedMemo, skippedMemo;
  std::optional<kube::SystemTime> next;
  std::optional<std::chrono::milliseconds> wait;
  bool invalid = false;
};

std::string invalidCron() {
  try {
    api::CronSchedule::parse("61 * * * *");
  } catch (const std::exception& e) {
    return std::string("invalid spec: ") + e.what();
  }
  return "";
}

const auto kNoon = kT0 + 2h;  // the firing after r1's

std::vector<Case> cases() {
  std::vector<Case> c;
  c.push_back({"NotDueBeforeTheNextFiring",
               [](ScheduleObservation& o) { o.now = kT0 + 1h + 30min; },
               Start::None,
               std::nullopt,
               {},
               {},
               {},
               {},
               std::nullopt,
               std::nullopt,
               kT0 + 2h,
               30min + 100ms});
  c.push_back({"DueOnceTheFiringPassed",
               [](ScheduleObservation&) {},
               Start::Create,
               kNoon,
               {},
               {},
               {},
               {},
               std::nullopt,
               std::nullopt,
               kT0 + 3h,
               1h - 1s + 100ms});
  c.push_back({"NeverCreatedRunsFromTheCreationTime",
               [](ScheduleObservation& o) {
                 o.lastScheduleTime.reset();
                 o.lastRunScheduled = {};
                 o.recorded.clear();
                 o.runs.clear();
                 o.now = kT0 + 1h + 5s;
               },
               Start::Create,
               kT0 + 1h,
               {},
               {},
               {},
               {},
               std::nullopt,
               std::nullopt,
               kT0 + 2h,
               1h - 5s + 100ms});
  c.push_back({"MissedPastTheStartingDeadline",
               [](ScheduleObservation& o) {
                 o.spec.startingDeadlineSeconds = 60;
                 o.now = kNoon + 5min;
               },
               Start::None,
               std::nullopt,
               {},
               {},
               {},
               {},
               "missed 2026-11-26T02:00:00Z",
               std::nullopt,
               kT0 + 3h,
               55min + 100ms});
  c.push_back({"LateWithinTheStartingDeadline",
               [](ScheduleObservation& o) {
                 o.spec.startingDeadlineSeconds = 600;
                 o.now = kNoon + 5min;
               },
               Start::Create,
               kNoon,
               {},
               {},
               {},
               {},
               std::nullopt,
               std::nullopt,
               kT0 + 3h,
               55min + 100ms});
  c.push_back({"SeveralMissedFiringsMakeOneRun",
               [](ScheduleObservation& o) { o.now = kT0 + 5h + 1s; },
               Start::Create,
               kT0 + 5h,
               {},
               {},
               {},
               {},
               std::nullopt,
               std::nullopt,
               kT0 + 6h,
               1h - 1s + 100ms});
  c.push_back({"ForbidWaitsForTheActiveRun",
               [](ScheduleObservation& o) { o.runs[0] = run("r1", kT0 + 1h, "Running"); },
               Start::Skip,
               kNoon,
               {},
               {},
               {"r1"},
               {},
               std::nullopt,
               "skipped 2026-11-26T02:00:00Z",
               kT0 + 3h,
               1h - 1s + 100ms});
  c.push_back({"ReplaceDeletesTheActiveRunFirst",
               [](ScheduleObservation& o) {
                 o.spec.concurrencyPolicy = api::ConcurrencyPolicy::Replace;
                 o.runs[0] = run("r1", kT0 + 1h, "Running");
               },
               Start::Create,
               kNoon,
               {},
               {},
               {"r1"},
               {"r1"},
               std::nullopt,
               std::nullopt,
               kT0 + 3h,
               1h - 1s + 100ms});
  c.push_back({"ARunBeingDeletedIsNotActive",
               [](ScheduleObservation& o) {
                 o.runs[0] = run("r1", kT0 + 1h, "Running");
                 o.runs[0].deleting = true;
               },
               Start::Create,
               kNoon,
               {},
               {},
               {},
               {},
               std::nullopt,
               std::nullopt,
               kT0 + 3h,
               1h - 1s + 100ms});
  c.push_back({"TheDueFiringsRunExistsAlready",
               [](ScheduleObservation& o) {
                 o.recorded.push_back({"r2", "u-r2", kNoon});
                 o.runs.push_back(run("r2", kNoon, "Pending"));
               },
               Start::Recorded,
               kNoon,
               {},
               {},
               {"r2"},
               {},
               std::nullopt,
               std::nullopt,
               kT0 + 3h,
               1h - 1s + 100ms});
  c.push_back({"SettledRunsAreAccountedOldestFirst",
               [](ScheduleObservation& o) {
                 o.lastScheduleTime = kNoon;
                 o.lastRunScheduled = kT0 + 1h;
                 o.recorded.push_back({"r2", "u-r2", kNoon});
                 o.runs.push_back(run("r2", kNoon, "Failed"));
                 o.runs.push_back(run("r3", kNoon, "Succeeded", false));
                 o.now = kNoon + 10min;
               },
               Start::None,
               std::nullopt,
               {"r2"},
               {},
               {},
               {},
               std::nullopt,
               std::nullopt,
               kT0 + 3h,
               50min + 100ms});
  c.push_back({"HistoryLimitsPruneTheOldestAccounted",
               [](ScheduleObservation& o) {
                 o.spec.successfulRunsHistoryLimit = 1;
                 o.spec.failedRunsHistoryLimit = 0;
                 o.lastScheduleTime = kT0 + 4h;
                 o.lastRunScheduled = kT0 + 3h;
                 o.runs = {run("r1", kT0 + 1h, "Succeeded"), run("r2", kT0 + 2h, "Failed"),
                           run("r3", kT0 + 3h, "Succeeded"), run("r4", kT0 + 4h, "Succeeded")};
                 o.now = kT0 + 4h + 10min;
               },
               // r4 is accounted now, so it counts: r1 and r3 go, and r2.
               Start::None,
               std::nullopt,
               {"r4"},
               {"r1", "r3", "r2"},
               {},
               {},
               std::nullopt,
               std::nullopt,
               kT0 + 5h,
               50min + 100ms});
  c.push_back({"AForgedLastRunAccountsNothingAway",
               [](ScheduleObservation& o) {
                 o.lastRunScheduled = kT0 + 100h;
                 o.now = kT0 + 1h + 10min;
               },
               Start::None,
               std::nullopt,
               {"r1"},
               {},
               {},
               {},
               std::nullopt,
               std::nullopt,
               kT0 + 2h,
               50min + 100ms});
  c.push_back({"SuspendedStartsNothingAndWaitsForAChange",
               [](ScheduleObservation& o) {
                 o.spec.suspend = true;
                 o.spec.startingDeadlineSeconds = 1;
                 o.now = kNoon + 5min;
               },
               Start::None,
               std::nullopt,
               {},
               {},
               {},
               {},
               std::nullopt,
               std::nullopt,
               kT0 + 3h,
               std::nullopt});
  c.push_back({"NeverFiringAgainWaitsForAChange",
               [](ScheduleObservation& o) {
                 o.nextFiring = [](kube::SystemTime after) -> std::optional<kube::SystemTime> {
                   if (after < kNoon) return kNoon;
                   return std::nullopt;
                 };
               },
               Start::Create,
               kNoon,
               {},
               {},
               {},
               {},
               std::nullopt,
               std::nullopt,
               std::nullopt,
               std::nullopt});
  c.push_back({"ALongWaitIsCutToMaxWait",
               [](ScheduleObservation& o) {
                 o.maxWait = 10min;
                 o.now = kT0 + 1h + 1min;
               },
               Start::None,
               std::nullopt,
               {},
               {},
               {},
               {},
               std::nullopt,
               std::nullopt,
               kT0 + 2h,
               10min});
  Case invalid;
  invalid.name = "AnInvalidCronDecidesNothingElse";
  invalid.given = [](ScheduleObservation& o) { o.invalid = invalidCron(); };
  invalid.invalid = true;
  c.push_back(invalid);
  return c;
}

TEST(SchedulePlanTest, Table) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    ScheduleObservation o = observation(kNoon + 1s);
    c.given(o);
    const SchedulePlan plan = planSchedule(o);
    EXPECT_EQ(plan.invalid.has_value(), c.invalid);
    EXPECT_EQ(plan.start, c.start);
    EXPECT_EQ(plan.due, c.due);
    EXPECT_EQ(names(plan.account), c.account);
    EXPECT_EQ(names(plan.prune), c.prune);
    EXPECT_EQ(names(plan.active), c.active);
    EXPECT_EQ(names(plan.replace), c.replace);
    EXPECT_EQ(plan.missed ? std::optional<std::string>(plan.missed->memo) : std::nullopt,
              c.missedMemo);
    EXPECT_EQ(plan.skipped ? std::optional<std::string>(plan.skipped->memo) : std::nullopt,
              c.skippedMemo);
    if (!c.invalid) {
      EXPECT_EQ(plan.next, c.next);
    }
    EXPECT_EQ(plan.wait, c.wait);
  }
}

TEST(SchedulePlanTest, TheInvalidMessageIsTheParsersWithItsPrefix) {
  const std::string message = invalidCron();
  ASSERT_EQ(message.rfind("invalid spec: ", 0), 0u);
  ScheduleObservation o = observation(kNoon + 1s);
  o.invalid = message;
  EXPECT_EQ(planSchedule(o).invalid, message);
}

TEST(SchedulePlanTest, MissedAndSkippedEventsSayWhatHappened) {
  ScheduleObservation o = observation(kNoon + 5min);
  o.spec.startingDeadlineSeconds = 60;
  const SchedulePlan missed = planSchedule(o);
  ASSERT_TRUE(missed.missed);
  EXPECT_TRUE(missed.missed->warning);
  EXPECT_EQ(missed.missed->reason, "MissedSchedule");
  EXPECT_EQ(missed.missed->message,
            "missed the run due at 2026-11-26T02:00:00Z (1 firings since the last run): it is "
            "past startingDeadlineSeconds (60s); was the operator down? The next run is at "
            "2026-11-26T03:00:00Z");

  ScheduleObservation f = observation(kNoon + 1s);
  f.runs[0] = run("r1", kT0 + 1h, "Running");
  const SchedulePlan skipped = planSchedule(f);
  ASSERT_TRUE(skipped.skipped);
  EXPECT_FALSE(skipped.skipped->warning);
  EXPECT_EQ(skipped.skipped->reason, "RunSkipped");
  EXPECT_EQ(skipped.skipped->message,
            "the run due at 2026-11-26T02:00:00Z waits: run r1 is still active "
            "(concurrencyPolicy Forbid); it starts when that run ends, if within "
            "startingDeadlineSeconds");
}

}  // namespace
}  // namespace distbench::op
