// What get, list and run --wait print of objects as the operator writes
// them (docs/crd-reference.md's status fields).
#include "distbench/plugin/run_view.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "distbench/plugin/exit_codes.h"
#include "distbench/plugin/run_follow.h"

namespace distbench::plugin {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using web::json::value;

value run(const std::string& status, const std::string& spec = R"({"topology":{"trainers":2}})") {
  return value::parse(R"({"metadata":{"name":"small"},"spec":)" + spec + R"(,"status":)" + status +
                      "}");
}

const char* const kSucceeded = R"j({"phase":"Succeeded","restartCount":1,
  "master":{"active":0,"ready":0,"succeeded":1,"failed":0},
  "trainers":{"active":0,"ready":0,"succeeded":2,"failed":0},
  "results":{"kind":"DDP","p50":"0.437s","rows":[{"group":"resnet18 with batch size 16",
    "row":"1M/2R","p50":0.437,"p75":0.45,"p90":0.464,"p95":0.476,"perSecond":36.6,"unit":"examples"}]},
  "bottleneck":"resnet18 with batch size 16 1M/2R: compute-bound (backward 58%)",
  "conditions":[{"type":"Succeeded","status":"True"},{"type":"ReportStored","status":"True"}]})j";

TEST(RunView, AFinishedRunShowsItsRowsBottleneckAndWhereItsPageIs) {
  const std::string text = runSummary(run(kSucceeded));
  EXPECT_THAT(text, HasSubstr("small: Succeeded, gang 1\n"));
  EXPECT_THAT(text, HasSubstr("resnet18 with batch size 16"));
  EXPECT_THAT(text,
              HasSubstr("1M/2R          0.4370    0.4500    0.4640    0.4760    36.6 examples/s"));
  EXPECT_THAT(text, HasSubstr("bottleneck: resnet18 with batch size 16 1M/2R: compute-bound"));
  EXPECT_THAT(text, HasSubstr("report: kubectl distbench report small"));
  EXPECT_EQ(runVerdict(run(kSucceeded)), "");
  EXPECT_THAT(runListLine(run(kSucceeded)), HasSubstr("Succeeded  1     -      0.437s     -"));
}

TEST(RunView, TheBaselineVerdictAndTheExitCode) {
  value b = run(kSucceeded);
  b["spec"]["baseline"] = value::parse(R"({"benchmark":"yesterday"})");
  EXPECT_FALSE(runSettled(b));  // the comparison is still to come
  b["status"]["baseline"] = value::parse(R"({"source":"DistBenchmark yesterday",
    "thresholdPercent":5,"comparedRows":3,"regressedRows":1,"worstRow":"1M/2R +12.0%"})");
  b["status"]["conditions"][2] = value::parse(R"({"type":"RegressionDetected","status":"True"})");
  EXPECT_TRUE(runSettled(b));
  EXPECT_EQ(runVerdict(b), "Regression");
  EXPECT_EQ(runExitCode(b), kExitRegression);
  EXPECT_THAT(runSummary(b), HasSubstr("baseline DistBenchmark yesterday: Regression, 1 of 3 rows "
                                       "regressed over 5 %; worst 1M/2R +12.0%"));
  b["status"]["phase"] = value::string("Failed");
  EXPECT_EQ(runExitCode(b), kExitFailed);
}

TEST(RunFollow, StateChangesAndRestartsEachOnceWithTheirCause) {
  RunFollower f;
  EXPECT_THAT(f.observe(run(R"({"phase":"Pending","restartCount":0,
      "master":{"active":1,"ready":0},"trainers":{"active":2,"ready":0}})")),
              ElementsAre("Pending, gang 0, ranks 0/3 ready"));
  const value running = run(R"({"phase":"Running","restartCount":0,
      "master":{"active":1,"ready":1},"trainers":{"active":2,"ready":2}})");
  EXPECT_THAT(f.observe(running), ElementsAre("Running, gang 0, ranks 3/3 ready"));
  EXPECT_TRUE(f.observe(running).empty());
  EXPECT_THAT(f.observe(run(R"({"phase":"Pending","restartCount":1,
      "master":{"active":1,"ready":0},"trainers":{"active":2,"ready":0},
      "conditions":[{"type":"Restarting","status":"True","reason":"OOMKilled",
        "message":"trainer1 (pod small-trainer-1) was OOMKilled"}]})")),
              ElementsAre("restart 1: OOMKilled: trainer1 (pod small-trainer-1) was OOMKilled",
                          "Pending, gang 1, ranks 0/3 ready"));
  EXPECT_FALSE(runFinished(running));
}

TEST(RunFollow, ProgressIsABarDrawnWhenItMoves) {
  RunFollower f;
  const char* state = R"({"phase":"Running","restartCount":0,
      "master":{"active":1,"ready":1},"trainers":{"active":2,"ready":2})";
  EXPECT_THAT(f.observe(run(std::string(state) + "}")),
              ElementsAre("Running, gang 0, ranks 3/3 ready"));
  const value p40 = run(std::string(state) +
                        R"(,"progress":{"unit":"iterations","done":40,"total":100,"gang":0}})");
  EXPECT_THAT(f.observe(p40),
              ElementsAre("progress [############..................]  40/100 iterations  40%"));
  EXPECT_TRUE(f.observe(p40).empty());
  EXPECT_THAT(f.observe(run(std::string(state) +
                            R"(,"progress":{"unit":"iterations","done":100,"total":100}})")),
              ElementsAre("progress [##############################]  100/100 iterations  100%"));
  EXPECT_EQ(progressBar(run(std::string(state) + "}")), "");
  EXPECT_EQ(progressBar(run(std::string(state) + R"(,"progress":{"unit":"steps","done":0,"total":0}})"), 4),
            "[....]  0/0 steps");
}

TEST(RunView, TheMastersOutputFromTheReportStandsForTheRowsAndTheFooter) {
  StoredOutput stored;
  stored.masterOutput = "-----\ndistbench ddp\n-----\n  1M/2R   0.437\nbottleneck: compute\n";
  const std::string text = runSummary(run(kSucceeded), stored);
  EXPECT_THAT(text, HasSubstr("small: Succeeded, gang 1\n\n-----\ndistbench ddp\n"));
  EXPECT_THAT(text, HasSubstr("bottleneck: compute\n\n"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("p50 (s)")));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("bottleneck: resnet18")));
  EXPECT_THAT(text, HasSubstr("report: kubectl distbench report small"));
  StoredOutput older;
  older.attribution = "attribution: compute-bound\n";
  EXPECT_THAT(runSummary(run(kSucceeded), older),
              AllOf(HasSubstr("p50 (s)"), HasSubstr("attribution: compute-bound\n")));
}

TEST(RunView, ASchedulesLastRunKeptRunsAndTrend) {
  const value s = value::parse(R"({"metadata":{"name":"canary"},
    "spec":{"schedule":"0 3 * * *","timeZone":"Europe/Berlin"},
    "status":{"nextScheduleTime":"2026-11-29T02:00:00Z",
      "lastRun":{"name":"canary-29404320","phase":"Succeeded","p50":"0.41s","verdict":"NoRegression"},
      "runs":[{"name":"canary-29402880","scheduledTime":"2026-11-27T02:00:00Z"},
              {"name":"canary-29404320","scheduledTime":"2026-11-28T02:00:00Z"}],
      "baseline":{"configMap":"canary-baseline","runs":["canary-29402880"]}}})");
  const std::string text = scheduleSummary(s);
  EXPECT_THAT(text, HasSubstr("canary: \"0 3 * * *\" (Europe/Berlin); next 2026-11-29T02:00:00Z"));
  EXPECT_THAT(text,
              HasSubstr("last run canary-29404320: Succeeded, p50 0.41s, verdict NoRegression"));
  EXPECT_THAT(text, HasSubstr("baseline: 1 run(s) pooled in ConfigMap canary-baseline"));
  EXPECT_THAT(text, HasSubstr("trend: kubectl distbench report canary"));
  EXPECT_THAT(scheduleListLine(s),
              HasSubstr("canary-29404320                  0.41s      NoRegression"));
}

}  // namespace
}  // namespace distbench::plugin
