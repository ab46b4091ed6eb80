// Reading a check's DistBenchmark: still running, failed, or the Fabric
// verdict the operator wrote, summarized with its figures and intervals.
#include "distbench/operator/preflight/check_run_verdict.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace distbench::op {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using web::json::value;

value benchmark(const std::string& statusJson) {
  return value::parse(R"({"metadata":{"name":"run"},"status":)" + statusJson + "}");
}

std::string suspect(const std::string& what, const std::string& where, const std::string& status,
                    const std::string& nodes) {
  return R"({"what":")" + what + R"(","where":")" + where + R"(","status":")" + status +
         R"(","nodes":)" + nodes +
         R"(,"estimate":{"value":4.1e9,"low":3.9e9,"high":4.3e9},"line":9.81e9,"unit":"bytes/s"})";
}

value fabric(const std::string& suspects, int omitted = 0) {
  return benchmark(
      R"({"phase":"Succeeded","conditions":[{"type":"ReportStored","status":"True"}],
          "fabric":{"line":{"bandwidthBytesPerSecond":9.81e9,"computeFlops":1.2e12,"source":"group"},
                    "thresholdPercent":25,"nodes":4,"pairsMeasured":6,"pairsTotal":6,
                    "suspects":[)" +
      suspects + R"(],"suspectsOmitted":)" + std::to_string(omitted) + "}}");
}

TEST(CheckRunVerdict, RunningUntilTheVerdictIsWritten) {
  EXPECT_EQ(readCheckRunVerdict(value::parse(R"({"metadata":{}})")).outcome,
            CheckRunOutcome::Running);
  EXPECT_EQ(readCheckRunVerdict(benchmark(R"({"phase":"Running"})")).outcome,
            CheckRunOutcome::Running);
  // Succeeded, its report not stored yet: the verdict comes with ReportStored.
  EXPECT_EQ(readCheckRunVerdict(benchmark(R"({"phase":"Succeeded"})")).outcome,
            CheckRunOutcome::Running);
}

TEST(CheckRunVerdict, FailuresSayWhy) {
  const CheckRunVerdict failed =
      readCheckRunVerdict(benchmark(R"({"phase":"Failed","message":"rank trainer-2 exited 1"})"));
  EXPECT_EQ(failed.outcome, CheckRunOutcome::Failed);
  EXPECT_THAT(failed.summary, HasSubstr("rank trainer-2 exited 1"));
  const CheckRunVerdict noReport = readCheckRunVerdict(benchmark(
      R"({"phase":"Succeeded","conditions":[{"type":"ReportStored","status":"False","message":"no report in the master's log"}]})"));
  EXPECT_EQ(noReport.outcome, CheckRunOutcome::Failed);
  EXPECT_THAT(noReport.summary, HasSubstr("no report in the master's log"));
  const CheckRunVerdict unreadable = readCheckRunVerdict(
      benchmark(R"({"phase":"Succeeded","conditions":[{"type":"ReportStored","status":"True"}]})"));
  EXPECT_EQ(unreadable.outcome, CheckRunOutcome::Failed);
  EXPECT_THAT(unreadable.summary, HasSubstr("FabricUnreadable"));
}

TEST(CheckRunVerdict, HealthySaysWhichLineTheNodesMet) {
  const CheckRunVerdict v = readCheckRunVerdict(fabric(""));
  EXPECT_EQ(v.outcome, CheckRunOutcome::Healthy);
  EXPECT_THAT(v.summary, HasSubstr("4 nodes within 25 % of the group line"));
  EXPECT_THAT(v.summary, HasSubstr("links 9.81 GB/s"));
  EXPECT_THAT(v.summary, HasSubstr("compute 1.20 TFLOP/s"));
  EXPECT_THAT(v.summary, HasSubstr("6 of 6 pairs"));
  EXPECT_TRUE(v.slowNodes.empty());
}

TEST(CheckRunVerdict, SlowNamesTheSuspectWithItsInterval) {
  const CheckRunVerdict v =
      readCheckRunVerdict(fabric(suspect("node", "node-c", "Slow", R"(["node-c"])")));
  EXPECT_EQ(v.outcome, CheckRunOutcome::Slow);
  EXPECT_THAT(v.summary, HasSubstr("node node-c: 4.10 GB/s [3.90 GB/s, 4.30 GB/s] against the "
                                   "line's 9.81 GB/s"));
  EXPECT_EQ(v.slowNodes, std::vector<std::string>{"node-c"});
}

TEST(CheckRunVerdict, ASlowLinkIsNoNodesFault) {
  const CheckRunVerdict v = readCheckRunVerdict(
      fabric(suspect("link", "node-a <-> node-b", "Slow", R"(["node-a","node-b"])")));
  EXPECT_EQ(v.outcome, CheckRunOutcome::Slow);
  EXPECT_TRUE(v.slowNodes.empty());
}

TEST(CheckRunVerdict, InconclusiveOnlyWhenNothingIsSlow) {
  const CheckRunVerdict undecided =
      readCheckRunVerdict(fabric(suspect("node", "node-d", "Inconclusive", R"(["node-d"])")));
  EXPECT_EQ(undecided.outcome, CheckRunOutcome::Inconclusive);
  EXPECT_TRUE(undecided.slowNodes.empty());
  const CheckRunVerdict mixed = readCheckRunVerdict(
      fabric(suspect("node", "node-d", "Inconclusive", R"(["node-d"])") + "," +
             suspect("compute", "node-e", "Slow", R"(["node-e"])")));
  EXPECT_EQ(mixed.outcome, CheckRunOutcome::Slow);
  EXPECT_THAT(mixed.summary, Not(HasSubstr("node-d")));
  EXPECT_EQ(mixed.slowNodes, std::vector<std::string>{"node-e"});
}

TEST(CheckRunVerdict, ALongListIsCut) {
  std::string many;
  for (int i = 0; i < 6; ++i) {
    many += (i ? "," : "") + suspect("node", "node-" + std::to_string(i), "Slow",
                                     R"(["node-)" + std::to_string(i) + R"("])");
  }
  const CheckRunVerdict v = readCheckRunVerdict(fabric(many, 3));
  EXPECT_THAT(v.summary, HasSubstr("node node-3"));
  EXPECT_THAT(v.summary, Not(HasSubstr("node node-4")));
  EXPECT_THAT(v.summary, HasSubstr("and 5 more"));
  EXPECT_EQ(v.slowNodes.size(), 6u);
}

}  // namespace
}  // namespace distbench::op
