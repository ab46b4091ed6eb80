// How a schedule reads its runs: which are its own, their order, and when
// a run's outcome is complete enough to account.
#include <gtest/gtest.h>

#include "distbench/api/schedule_spec.h"
#include "distbench/operator/schedule_runs.h"

namespace distbench::op {
namespace {

using web::json::value;

value run(const std::string& name, const std::string& ownerUid, const std::string& scheduledAt,
          const std::string& statusJson = "{}") {
  value b = value::parse(R"({"metadata": {"name": ")" + name + R"(", "uid": "u-)" + name +
                         R"(", "annotations": {}, "ownerReferences": [{"kind":
                         "DistBenchmarkSchedule", "name": "s", "uid": ")" +
                         ownerUid + R"(", "controller": true}]}})");
  if (!scheduledAt.empty())
    b["metadata"]["annotations"][api::kScheduledAtAnnotation] = value::string(scheduledAt);
  b["status"] = value::parse(statusJson);
  return b;
}

TEST(ScheduleRunsTest, OnlyTheSchedulesOwnRunsOldestFirst) {
  const std::vector<value> objects = {
      run("s-3", "sched", "2026-11-26T10:02:00Z"),
      run("s-1", "sched", "2026-11-26T10:00:00Z"),
      run("other", "someone-else", "2026-11-26T10:01:00Z"),
      run("s-handmade", "sched", ""),
  };
  const std::vector<ScheduledRun> runs = scheduledRuns(objects, "sched");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].name, "s-1");
  EXPECT_EQ(runs[1].name, "s-3");
  EXPECT_EQ(runs[0].phase, "Pending");
  EXPECT_FALSE(runs[0].finished());
}

TEST(ScheduleRunsTest, ASucceededRunSettlesOnceItsReportIsStored) {
  const ScheduledRun open = scheduledRunOf(
      run("s-1", "sched", "2026-11-26T10:00:00Z", R"({"phase": "Succeeded"})"));
  EXPECT_TRUE(open.succeeded);
  EXPECT_FALSE(open.settled);

  const ScheduledRun stored = scheduledRunOf(run("s-1", "sched", "2026-11-26T10:00:00Z", R"({
      "phase": "Succeeded", "completionTime": "2026-11-26T10:00:40Z",
      "results": {"p50": "0.412s"},
      "conditions": [{"type": "ReportStored", "status": "True", "reason": "Stored"}]})"));
  EXPECT_TRUE(stored.settled);
  EXPECT_TRUE(stored.reportStored);
  EXPECT_EQ(stored.verdict, kVerdictNoBaseline);
  EXPECT_EQ(stored.p50, "0.412s");
  ASSERT_TRUE(stored.finishedAt);
  EXPECT_EQ(formatRfc3339(*stored.finishedAt), "2026-11-26T10:00:40Z");
}

TEST(ScheduleRunsTest, TheComparisonDecidesTheVerdict) {
  auto verdictOf = [](const std::string& status, const std::string& reason) {
    return scheduledRunOf(run("s-1", "sched", "2026-11-26T10:00:00Z", R"({
        "phase": "Succeeded", "baseline": {"worstRow": "g / r: median +9%"},
        "conditions": [{"type": "ReportStored", "status": "True"},
                       {"type": "RegressionDetected", "status": ")" + status +
                                                         R"(", "reason": ")" + reason +
                                                         R"(", "message": "m"}]})"));
  };
  const ScheduledRun regressed = verdictOf("True", "RegressionDetected");
  EXPECT_EQ(regressed.verdict, kVerdictRegression);
  EXPECT_EQ(regressed.worstRow, "g / r: median +9%");
  EXPECT_EQ(verdictOf("False", "NoRegression").verdict, kVerdictNoRegression);
  const ScheduledRun incomparable = verdictOf("Unknown", "BaselineIncomparable");
  EXPECT_EQ(incomparable.verdict, kVerdictNoBaseline);
  EXPECT_EQ(incomparable.verdictReason, "BaselineIncomparable");
}

TEST(ScheduleRunsTest, AFailedRunIsSettledAtOnce) {
  const ScheduledRun failed = scheduledRunOf(run("s-1", "sched", "2026-11-26T10:00:00Z", R"j({
      "phase": "Failed", "message": "trainer 1 exited with code 137 (OOMKilled)"})j"));
  EXPECT_TRUE(failed.settled);
  EXPECT_FALSE(failed.succeeded);
  EXPECT_EQ(failed.verdict, kVerdictFailed);
  EXPECT_EQ(failed.verdictMessage, "trainer 1 exited with code 137 (OOMKilled)");
}

}  // namespace
}  // namespace distbench::op
