#include "distbench/report/baseline_trend.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "distbench/testing/report/diff_test_reports.h"

namespace distbench::report {
namespace {

using testing::around;
using testing::ddpReport;
using testing::ddpSeries;

PooledRun run(const std::string& name, double level) {
  return {name, ddpReport({ddpSeries("resnet50", 32, "1M/2R", 2, around(level, 0.01))})};
}

TrendOptions options(int baselineRuns = 5) {
  TrendOptions o;
  o.baselineRuns = baselineRuns;
  o.diff.thresholdPercent = 5;
  return o;
}

TEST(BaselineTrend, EachRunIsJudgedByTheUnregressedRunsBeforeIt) {
  const std::vector<TrendRun> trend = replayTrend({run("r1", 1.0), run("r2", 1.01), run("r3", 0.99),
                                                   run("r4", 1.5), run("r5", 1.0), run("r6", 1.02)},
                                                  options(3));
  ASSERT_EQ(trend.size(), 6u);
  EXPECT_EQ(trend[0].verdict, PoolVerdict::NoBaseline);
  EXPECT_EQ(trend[1].verdict, PoolVerdict::NoBaseline) << "one run says nothing of the spread";
  EXPECT_TRUE(trend[1].pool.empty());
  EXPECT_EQ(trend[2].verdict, PoolVerdict::NoRegression);
  EXPECT_EQ(trend[2].pool, (std::vector<std::string>{"r1", "r2"}));
  EXPECT_EQ(trend[3].verdict, PoolVerdict::Regression);
  EXPECT_FALSE(trend[3].entered);
  EXPECT_TRUE(trend[3].points[0].regressed);
  EXPECT_EQ(trend[4].pool, (std::vector<std::string>{"r1", "r2", "r3"}))
      << "the regressed run stayed out";
  EXPECT_EQ(trend[5].pool, (std::vector<std::string>{"r2", "r3", "r5"})) << "the newest 3";
  EXPECT_EQ(trend[5].verdict, PoolVerdict::NoRegression);
}

TEST(BaselineTrend, PointsCarryTheRunsP50AndTheBaselinesBand) {
  const std::vector<TrendRun> trend =
      replayTrend({run("r1", 1.0), run("r2", 1.0), run("r3", 2.0)}, options());
  const TrendPoint& first = trend[0].points[0];
  EXPECT_EQ(first.group, "resnet50 with batch size 32");
  EXPECT_EQ(first.row, "1M/2R");
  EXPECT_NEAR(first.p50, 1.0, 1e-12);
  EXPECT_FALSE(first.baselineP50);
  EXPECT_FALSE(first.change);
  const TrendPoint& third = trend[2].points[0];
  EXPECT_NEAR(third.p50, 2.0, 1e-12);
  ASSERT_TRUE(third.baselineP50);
  EXPECT_NEAR(*third.baselineP50, 1.0, 1e-12);
  EXPECT_NEAR(*third.regressionLine, 1.05, 1e-12);
  ASSERT_TRUE(third.change);
  EXPECT_NEAR(third.change->pointChange, 1.0, 1e-12);
  EXPECT_TRUE(third.regressed);
}

TEST(BaselineTrend, AChangedBenchmarkStartsAgain) {
  PooledRun other = run("r3", 1.0);
  other.report.series[0].groupKey["imageSize"] = "64";
  const std::vector<TrendRun> trend =
      replayTrend({run("r1", 1.0), run("r2", 1.0), other, run("r4", 1.0)}, options());
  EXPECT_EQ(trend[2].verdict, PoolVerdict::Incomparable);
  EXPECT_NE(trend[2].note.find("imageSize 224 vs 64"), std::string::npos) << trend[2].note;
  EXPECT_TRUE(trend[2].entered);
  // r4 measures what r1 did, not r3: not judged by r3 alone, and not pooled with it.
  EXPECT_EQ(trend[3].verdict, PoolVerdict::NoBaseline);
  EXPECT_NE(trend[3].note.find("the baseline starts again"), std::string::npos);
}

TEST(BaselineTrend, TheWorstPointIsARegressedOneWhereOneRegressed) {
  TrendRun run;
  EXPECT_EQ(worstPoint(run), nullptr);
  TrendPoint noisy, regressed, uncompared;
  noisy.change = MedianChange{0.9, -0.2, 2.0, false};
  regressed.change = MedianChange{0.3, 0.2, 0.4, true};
  regressed.regressed = true;
  run.points = {uncompared, noisy, regressed};
  EXPECT_EQ(worstPoint(run), &run.points[2]);
  run.points[2].regressed = false;
  EXPECT_EQ(worstPoint(run), &run.points[1]);
}

TEST(BaselineTrend, RefusesNonsenseOptions) {
  EXPECT_THROW(replayTrend({run("r1", 1.0)}, options(0)), std::invalid_argument);
  TrendOptions noThreshold = options();
  noThreshold.diff.thresholdPercent.reset();
  EXPECT_THROW(replayTrend({run("r1", 1.0)}, noThreshold), std::invalid_argument);
  EXPECT_EQ(verdictName(PoolVerdict::Regression), "Regression");
  EXPECT_EQ(verdictName(PoolVerdict::NoBaseline), "NoBaseline");
}

}  // namespace
}  // namespace distbench::report
