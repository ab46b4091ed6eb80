// The CronJob rules for when a schedule runs: one catch-up run for any
// number of missed firings, none past the starting deadline.
#include <gtest/gtest.h>

#include <chrono>

#include "distbench/operator/schedules/schedule_timing.h"

namespace distbench::op {
namespace {

using namespace std::chrono_literals;

// 2026-11-26T00:00:00Z, a whole minute.
const kube::SystemTime kT0 = kube::SystemTime(std::chrono::seconds(1795651200));

// Fires every `period` from the epoch, as "*/N * * * *" does within an hour.
NextFiring every(std::chrono::seconds period, int* calls = nullptr) {
  return [period, calls](kube::SystemTime after) -> std::optional<kube::SystemTime> {
    if (calls) ++*calls;
    const auto s = std::chrono::duration_cast<std::chrono::seconds>(after.time_since_epoch());
    return kube::SystemTime((s / period + 1) * period);
  };
}

TEST(ScheduleTimingTest, NothingDueBeforeTheFirstFiring) {
  const ScheduleTiming t = scheduleTiming(every(60s), kT0, kT0 + 30s, std::nullopt);
  EXPECT_FALSE(t.due);
  EXPECT_FALSE(t.missed);
  EXPECT_EQ(t.firingsSince, 0);
  ASSERT_TRUE(t.next);
  EXPECT_EQ(*t.next, kT0 + 60s);
  ASSERT_TRUE(t.interval);
  EXPECT_EQ(*t.interval, 60s);
}

TEST(ScheduleTimingTest, AFiringThatPassedIsDue) {
  const ScheduleTiming t = scheduleTiming(every(60s), kT0, kT0 + 61s, std::nullopt);
  ASSERT_TRUE(t.due);
  EXPECT_EQ(*t.due, kT0 + 60s);
  EXPECT_EQ(*t.next, kT0 + 120s);
}

TEST(ScheduleTimingTest, AFiringExactlyNowIsDue) {
  const ScheduleTiming t = scheduleTiming(every(60s), kT0, kT0 + 60s, std::nullopt);
  ASSERT_TRUE(t.due);
  EXPECT_EQ(*t.due, kT0 + 60s);
}

TEST(ScheduleTimingTest, ManyMissedFiringsMakeOneCatchUpRunForTheLatest) {
  const ScheduleTiming t = scheduleTiming(every(60s), kT0, kT0 + 10min + 5s, std::nullopt);
  ASSERT_TRUE(t.due);
  EXPECT_EQ(*t.due, kT0 + 10min);
  EXPECT_EQ(t.firingsSince, 10);
  EXPECT_EQ(*t.next, kT0 + 11min);
}

TEST(ScheduleTimingTest, TheLatestFiringWithinTheDeadlineRuns) {
  const ScheduleTiming t = scheduleTiming(every(60s), kT0, kT0 + 10min + 20s, 30s);
  ASSERT_TRUE(t.due);
  EXPECT_EQ(*t.due, kT0 + 10min);
  EXPECT_FALSE(t.missed);
}

TEST(ScheduleTimingTest, TheLatestFiringPastTheDeadlineIsMissedNotRun) {
  // Hourly, the operator back 20 minutes after the firing, deadline 5 min.
  const ScheduleTiming t = scheduleTiming(every(3600s), kT0, kT0 + 80min, 300s);
  EXPECT_FALSE(t.due);
  ASSERT_TRUE(t.missed);
  EXPECT_EQ(*t.missed, kT0 + 60min);
  EXPECT_EQ(*t.next, kT0 + 120min);
}

TEST(ScheduleTimingTest, AZeroDeadlineRunsOnlyAFiringThatIsExactlyNow) {
  EXPECT_TRUE(scheduleTiming(every(60s), kT0, kT0 + 60s, 0s).due);
  const ScheduleTiming late = scheduleTiming(every(60s), kT0, kT0 + 61s, 0s);
  EXPECT_FALSE(late.due);
  EXPECT_TRUE(late.missed);
}

TEST(ScheduleTimingTest, AScheduleThatNeverFiresAgainHasNoNext) {
  NextFiring once = [](kube::SystemTime after) -> std::optional<kube::SystemTime> {
    if (after < kT0 + 60s) return kT0 + 60s;
    return std::nullopt;
  };
  const ScheduleTiming t = scheduleTiming(once, kT0, kT0 + 90s, std::nullopt);
  ASSERT_TRUE(t.due);
  EXPECT_FALSE(t.next);
  EXPECT_FALSE(t.interval);
}

TEST(ScheduleTimingTest, MonthsOfMissedMinutesAreFoundInBoundedSteps) {
  int calls = 0;
  const kube::SystemTime now = kT0 + std::chrono::hours(24 * 200) + 7s;
  const ScheduleTiming t = scheduleTiming(every(60s, &calls), kT0, now, std::nullopt);
  ASSERT_TRUE(t.due);
  EXPECT_EQ(*t.due, now - 7s);
  EXPECT_EQ(*t.next, now + 53s);
  EXPECT_LT(calls, kMaxCountedFirings + 24 * 60 + 10);
}

}  // namespace
}  // namespace distbench::op
