// How a schedule reads its runs: which are its own, their order, and when
// a run's outcome is complete enough to account.
#include <gtest/gtest.h>

#include "distbench/api/schedule_spec.h"
#include "distbench/operator/schedules/schedule_runs.h"

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

RunRecord record(const std::string& name, const std::string& scheduledAt) {
  return {name, "u-" + name, kube::parseRfc3339(scheduledAt).value()};
}

TEST(ScheduleRunsTest, OnlyTheSchedulesOwnRunsOldestFirst) {
  const std::vector<value> objects = {
      run("s-3", "sched", "2026-11-26T10:02:00Z"),
      run("s-1", "sched", "2026-11-26T10:00:00Z"),
      run("other", "someone-else", "2026-11-26T10:01:00Z"),
  };
  const std::vector<RunRecord> recorded = {record("s-1", "2026-11-26T10:00:00Z"),
                                           record("s-3", "2026-11-26T10:02:00Z"),
                                           record("other", "2026-11-26T10:01:00Z")};
  const std::vector<ScheduledRun> runs = scheduledRuns(objects, "sched", recorded);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].name, "s-1");
  EXPECT_EQ(runs[1].name, "s-3");
  EXPECT_EQ(runs[0].phase, "Pending");
  EXPECT_FALSE(runs[0].finished());
}

// Name, label, annotation and controller reference are anyone's to set on
// a DistBenchmark they create; the UID the server gave the schedule's own
// create is not.
TEST(ScheduleRunsTest, ARunTheScheduleDidNotRecordIsNotItsRun) {
  const std::vector<value> objects = {
      run("s-1", "sched", "2026-11-26T10:00:00Z"),
      run("s-forged", "sched", "2100-01-01T00:00:00Z", R"({"phase": "Failed"})"),
      run("s-2", "sched", "2026-11-26T10:01:00Z"),
  };
  // s-2's annotation was edited after its create: the record keeps its time.
  const std::vector<RunRecord> recorded = {record("s-1", "2026-11-26T10:00:00Z"),
                                           record("s-2", "2026-11-26T09:59:00Z")};
  const std::vector<ScheduledRun> runs = scheduledRuns(objects, "sched", recorded);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].name, "s-2");
  EXPECT_EQ(kube::formatRfc3339(runs[0].scheduledAt), "2026-11-26T09:59:00Z");
  EXPECT_EQ(runs[1].name, "s-1");

  // A recorded UID on an object that no longer names the schedule as its
  // controller is not counted either.
  EXPECT_TRUE(scheduledRuns({run("s-1", "someone-else", "2026-11-26T10:00:00Z")}, "sched", recorded)
                  .empty());
  EXPECT_TRUE(scheduledRuns(objects, "sched", {}).empty());
}

TEST(ScheduleRunsTest, StatusRunsRoundTripAndUnreadableEntriesAreLeftOut) {
  const std::vector<RunRecord> records = {record("s-1", "2026-11-26T10:00:00Z"),
                                          record("s-abcde", "2026-11-26T10:01:00Z")};
  value status = value::object();
  status["runs"] = runRecordsJson(records);
  const std::vector<RunRecord> back = runRecords(status);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].name, "s-abcde");
  EXPECT_EQ(back[1].uid, "u-s-abcde");
  EXPECT_EQ(kube::formatRfc3339(back[1].scheduledAt), "2026-11-26T10:01:00Z");

  status["runs"][2] = value::parse(R"({"name": "s-2", "scheduledTime": "2026-11-26T10:02:00Z"})");
  status["runs"][3] = value::parse(R"({"name": "s-3", "uid": "u", "scheduledTime": "soon"})");
  status["runs"][4] = value::string("s-4");
  EXPECT_EQ(runRecords(status).size(), 2u);
  EXPECT_TRUE(runRecords(value::object()).empty());
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
  EXPECT_EQ(kube::formatRfc3339(*stored.finishedAt), "2026-11-26T10:00:40Z");
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
