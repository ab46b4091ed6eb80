#include "distbench/report/report_diff.h"

#include <gtest/gtest.h>

#include <cmath>

#include "distbench/testing/report/diff_test_reports.h"

namespace distbench::report {
namespace {

using testing::around;
using testing::ddpReport;
using testing::ddpSeries;

std::string refusal(const Report& base, const Report& test) {
  try {
    compareReports(base, test, {});
  } catch (const IncomparableReports& error) {
    return error.what();
  }
  return "(compared)";
}

std::vector<std::string> rowsOf(const GroupDiff& group) {
  std::vector<std::string> rows;
  for (const RowDiff& row : group.rows) rows.push_back(row.base->row);
  return rows;
}

TEST(ReportDiff, PercentChangeIsOfTimeSoPositiveIsSlower) {
  EXPECT_NEAR(percentChange(0.100, 0.110), 10.0, 1e-9);
  EXPECT_NEAR(percentChange(0.100, 0.090), -10.0, 1e-9);
  EXPECT_EQ(percentChange(0.5, 0.5), 0.0);
}

TEST(ReportDiff, PairsRowsByLabelInTheBaseOrderAndKeepsTheRest) {
  const auto base = ddpReport({ddpSeries("resnet50", 32, "no ddp", 1, around(0.1, 0.01)),
                               ddpSeries("resnet50", 32, "1M/1R", 1, around(0.1, 0.01)),
                               ddpSeries("resnet50", 32, "1M/2R", 2, around(0.1, 0.01))});
  const auto test = ddpReport({ddpSeries("resnet50", 32, "1M/2R", 2, around(0.1, 0.01)),
                               ddpSeries("resnet50", 32, "1M/4R", 4, around(0.1, 0.01)),
                               ddpSeries("resnet50", 32, "no ddp", 1, around(0.1, 0.01))});
  const ReportDiff diff = compareReports(base, test, {});
  ASSERT_EQ(diff.groups.size(), 1u);
  const GroupDiff& group = diff.groups[0];
  EXPECT_EQ(group.group, "resnet50 with batch size 32");
  EXPECT_EQ(group.sampleOf, "iteration");
  EXPECT_EQ(group.workUnit, "examples");
  EXPECT_EQ(rowsOf(group), (std::vector<std::string>{"no ddp", "1M/2R"}));
  EXPECT_EQ(group.onlyInBase, std::vector<std::string>{"1M/1R"});
  EXPECT_EQ(group.onlyInTest, std::vector<std::string>{"1M/4R"});
  EXPECT_TRUE(group.notCompared.empty());
}

TEST(ReportDiff, GroupsFollowTheBaseOrderWhateverTheTestOrder) {
  const auto base = ddpReport({ddpSeries("resnet50", 32, "1M/1R", 1, around(0.1, 0.01)),
                               ddpSeries("resnet101", 32, "1M/1R", 1, around(0.2, 0.01))});
  const auto test = ddpReport({ddpSeries("resnet101", 32, "1M/1R", 1, around(0.2, 0.01)),
                               ddpSeries("resnet50", 32, "1M/1R", 1, around(0.1, 0.01))});
  const ReportDiff diff = compareReports(base, test, {});
  ASSERT_EQ(diff.groups.size(), 2u);
  EXPECT_EQ(diff.groups[0].group, "resnet50 with batch size 32");
  EXPECT_EQ(diff.groups[1].group, "resnet101 with batch size 32");
  EXPECT_EQ(diff.groups[1].rows[0].base->samples, base.series[1].samples);
  EXPECT_EQ(diff.groups[1].rows[0].test->samples, test.series[0].samples);
}

TEST(ReportDiff, PercentilesAreOfEachSideAndTheMedianChangeIsRelative) {
  const auto base = ddpReport({ddpSeries("resnet50", 32, "1M/1R", 1, {0.4, 0.1, 0.3, 0.2, 0.5})});
  const auto test = ddpReport({ddpSeries("resnet50", 32, "1M/1R", 1, {0.6, 0.3, 0.5, 0.4, 0.7})});
  DiffOptions options;
  options.percentiles = {50, 75, 100};
  const RowDiff row = compareReports(base, test, options).groups[0].rows[0];
  EXPECT_EQ(row.basePercentiles, (std::vector<double>{0.3, 0.4, 0.5}));
  EXPECT_EQ(row.testPercentiles, (std::vector<double>{0.5, 0.6, 0.7}));
  EXPECT_NEAR(row.median.pointChange, 0.5 / 0.3 - 1, 1e-12);
  EXPECT_FALSE(row.regressed) << "no threshold, no verdict";
}

TEST(ReportDiff, RowsThatMeasureDifferentThingsAreNotCompared) {
  auto base = ddpReport({ddpSeries("resnet50", 32, "1M/2R", 2, around(0.1, 0.01)),
                         ddpSeries("resnet50", 32, "1M/4R", 4, around(0.1, 0.01)),
                         ddpSeries("resnet50", 32, "no ddp", 1, {0.1, 0.0, 0.1})});
  auto test = ddpReport({ddpSeries("resnet50", 32, "1M/2R", 4, around(0.1, 0.01)),
                         ddpSeries("resnet50", 32, "1M/4R", 4, around(0.1, 0.01)),
                         ddpSeries("resnet50", 32, "no ddp", 1, around(0.1, 0.01))});
  test.series[1].workPerSample = 16;
  const GroupDiff group = compareReports(base, test, {}).groups[0];
  EXPECT_TRUE(group.rows.empty());
  EXPECT_EQ(group.notCompared,
            (std::vector<std::string>{
                "1M/2R (ranks 2 vs 4)", "1M/4R (workPerSample 32 vs 16)",
                "no ddp (base has a sample of 0 seconds, no change can be relative to it)"}));
}

TEST(ReportDiff, EpochRowsAreComparedPerUnitOfWorkWhenOnlyChanceMadeTheWorkDiffer) {
  Series b = ddpSeries("m", 1, "All", 1, {2.0, 2.0, 2.0});
  b.sampleOf = "epoch";
  b.workPerSample = 100;
  Series t = b;
  t.workPerSample = 80;            // 80 examples an epoch ...
  t.samples = {1.76, 1.76, 1.76};  // ... at 0.022 s each: 10% slower per example
  const GroupDiff group = compareReports(ddpReport({b}), ddpReport({t}), {}).groups[0];
  ASSERT_EQ(group.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(group.rows[0].testWorkScale, 1.25);
  EXPECT_NEAR(group.rows[0].median.pointChange, 0.10, 1e-12);
  EXPECT_NEAR(group.rows[0].testPercentiles[0], 2.2, 1e-12);
  EXPECT_EQ(group.perWork, (std::vector<std::string>{"All (examples per epoch 100 vs 80)"}));
  EXPECT_TRUE(group.notCompared.empty());
}

TEST(ReportDiff, RefusesDifferentKinds) {
  auto test = ddpReport({});
  test.kind = "Collectives";
  EXPECT_EQ(refusal(ddpReport({}), test),
            "cannot compare: base is a DDP benchmark, test a Collectives benchmark");
}

TEST(ReportDiff, RefusesDifferentBatchSizesNamingBothValues) {
  const auto base = ddpReport({ddpSeries("resnet50", 32, "1M/1R", 1, around(0.1, 0.01))});
  const auto test = ddpReport({ddpSeries("resnet50", 16, "1M/1R", 1, around(0.1, 0.01))});
  EXPECT_EQ(refusal(base, test),
            "cannot compare: base benchmarks resnet50 with batch size 32, test benchmarks "
            "resnet50 with batch size 16 (batchSize 32 vs 16)");
}

TEST(ReportDiff, RefusesDifferentModelsInASweepAndCountsTheOtherPairs) {
  const auto base = ddpReport({ddpSeries("resnet50", 32, "1M/1R", 1, around(0.1, 0.01)),
                               ddpSeries("resnet101", 32, "1M/1R", 1, around(0.1, 0.01))});
  const auto test = ddpReport({ddpSeries("vgg16", 32, "1M/1R", 1, around(0.1, 0.01)),
                               ddpSeries("vgg19", 32, "1M/1R", 1, around(0.1, 0.01))});
  EXPECT_EQ(refusal(base, test),
            "cannot compare: base benchmarks resnet50 with batch size 32, test benchmarks vgg16 "
            "with batch size 32 (model resnet50 vs vgg16); 1 more group differs");
}

TEST(ReportDiff, RefusesTheSameGroupNameWithADifferentKey) {
  const auto base = ddpReport({ddpSeries("resnet50", 32, "1M/1R", 1, around(0.1, 0.01))});
  auto test = base;
  test.series[0].groupKey["imageSize"] = "299";
  test.series[0].groupKey.erase("model");
  EXPECT_EQ(refusal(base, test),
            "cannot compare: base benchmarks resnet50 with batch size 32, test benchmarks "
            "resnet50 with batch size 32 (imageSize 224 vs 299, model resnet50 vs (none))");
}

TEST(ReportDiff, RefusesReportsWithDifferentGroupsNamingThem) {
  const auto base = ddpReport({ddpSeries("resnet50", 32, "1M/1R", 1, around(0.1, 0.01)),
                               ddpSeries("resnet101", 32, "1M/1R", 1, around(0.1, 0.01)),
                               ddpSeries("resnet152", 32, "1M/1R", 1, around(0.1, 0.01))});
  const auto test = ddpReport({ddpSeries("resnet50", 32, "1M/1R", 1, around(0.1, 0.01))});
  EXPECT_EQ(refusal(base, test),
            "cannot compare: base and test benchmark different groups; only in base: resnet101 "
            "with batch size 32, resnet152 with batch size 32");
  EXPECT_EQ(refusal(test, base),
            "cannot compare: base and test benchmark different groups; only in test: resnet101 "
            "with batch size 32, resnet152 with batch size 32");
}

TEST(ReportDiff, ComparesDifferentConfigurationsOfTheSameBenchmark) {
  // What an A/B comparison is for: the bucket size, backend or versions differ.
  auto base = ddpReport({ddpSeries("resnet50", 32, "1M/2R", 2, around(0.1, 0.01))}, 25);
  auto test = ddpReport({ddpSeries("resnet50", 32, "1M/2R", 2, around(0.1, 0.01))}, 1);
  test.backend = "nccl";
  test.versions["torch"] = "2.1.0";
  EXPECT_EQ(compareReports(base, test, {}).groups[0].rows.size(), 1u);
}

// Base around 0.100 s; test with the median `change` higher, `spread` noise.
RowDiff judged(double change, double spread, std::optional<double> threshold) {
  const auto base = ddpReport({ddpSeries("resnet50", 32, "1M/2R", 2, around(0.1, spread))});
  const auto test =
      ddpReport({ddpSeries("resnet50", 32, "1M/2R", 2, around(0.1 * (1 + change), spread))});
  DiffOptions options;
  options.thresholdPercent = threshold;
  return compareReports(base, test, options).groups[0].rows[0];
}

TEST(ReportDiff, ThresholdFlagsSignificantSlowdownsOverIt) {
  const RowDiff slower = judged(0.08, 0.01, 5.0);
  EXPECT_NEAR(slower.median.pointChange, 0.08, 1e-9);
  EXPECT_GT(slower.median.low, 0);
  EXPECT_TRUE(slower.regressed);
}

TEST(ReportDiff, ThresholdIgnoresSlowdownsUnderIt) {
  const RowDiff slower = judged(0.03, 0.01, 5.0);
  EXPECT_TRUE(slower.median.significant);
  EXPECT_FALSE(slower.regressed);
}

TEST(ReportDiff, ThresholdIgnoresNoisySlowdowns) {
  // +8% on the median, but with ±50% noise the interval reaches below 0.
  const RowDiff noisy = judged(0.08, 0.5, 5.0);
  EXPECT_GT(noisy.median.pointChange * 100, 5.0);
  EXPECT_LT(noisy.median.low, 0);
  EXPECT_FALSE(noisy.regressed);
}

TEST(ReportDiff, ThresholdIgnoresSpeedups) {
  const RowDiff faster = judged(-0.2, 0.01, 5.0);
  EXPECT_TRUE(faster.median.significant);
  EXPECT_FALSE(faster.regressed);
}

TEST(ReportDiff, ThresholdZeroFlagsAnySignificantSlowdown) {
  EXPECT_TRUE(judged(0.01, 0.01, 0.0).regressed);
  EXPECT_FALSE(judged(0.0, 0.01, 0.0).regressed);
}

TEST(ReportDiff, NoThresholdNoRegression) {
  EXPECT_FALSE(judged(0.5, 0.01, std::nullopt).regressed);
}

// A compared row with its median change given outright, for the tests that
// only look at changes.
RowDiff changed(const Series& series, double point, double low, double high) {
  RowDiff row;
  row.base = &series;
  row.test = &series;
  row.median = {point, low, high, low > 0 || high < 0};
  return row;
}

GroupDiff groupOf(const std::string& name, std::vector<RowDiff> rows) {
  GroupDiff group;
  group.group = name;
  group.rows = std::move(rows);
  return group;
}

TEST(ReportDiff, WorstRowIsTheLargestMedianChangeOverEveryGroup) {
  const Series a1 = ddpSeries("a", 1, "a1", 1, {1}), a2 = ddpSeries("a", 1, "a2", 1, {1});
  const Series b1 = ddpSeries("b", 1, "b1", 1, {1}), b2 = ddpSeries("b", 1, "b2", 1, {1});
  const Series b3 = ddpSeries("b", 1, "b3", 1, {1});
  ReportDiff diff;
  // Not the first row, not the last, not the one with the largest change in
  // size (b2, faster), nor the noisy one whose interval reaches highest (a2),
  // nor the one flagged as regressed (a1).
  diff.groups.push_back(
      groupOf("A", {changed(a1, 0.05, 0.04, 0.06), changed(a2, 0.10, -0.3, 0.6)}));
  diff.groups.push_back(
      groupOf("B", {changed(b1, 0.20, 0.18, 0.22), changed(b2, -0.5, -0.55, -0.45),
                    changed(b3, 0.15, 0.14, 0.16)}));
  diff.groups[0].rows[0].regressed = true;
  const GroupDiff* group = nullptr;
  const RowDiff* worst = worstRow(diff, &group);
  ASSERT_NE(worst, nullptr);
  EXPECT_EQ(worst, &diff.groups[1].rows[0]) << worst->base->row;
  EXPECT_EQ(group, &diff.groups[1]);
  EXPECT_EQ(worstRow(diff), worst) << "the group is optional";
}

TEST(ReportDiff, WorstRowOfSpeedupsGainedLeastAndTiesGoToTheFirst) {
  const Series r1 = ddpSeries("a", 1, "r1", 1, {1}), r2 = ddpSeries("a", 1, "r2", 1, {1});
  const Series r3 = ddpSeries("a", 1, "r3", 1, {1}), r4 = ddpSeries("a", 1, "r4", 1, {1});
  ReportDiff diff;
  diff.groups.push_back(
      groupOf("A", {changed(r1, -0.3, -0.4, -0.2), changed(r2, -0.1, -0.2, 0),
                    changed(r3, -0.1, -0.3, 0.1), changed(r4, -0.2, -0.3, -0.1)}));
  EXPECT_EQ(worstRow(diff), &diff.groups[0].rows[1]);
}

TEST(ReportDiff, WorstRowSkipsAChangeThatIsNotANumber) {
  const Series r1 = ddpSeries("a", 1, "r1", 1, {1}), r2 = ddpSeries("a", 1, "r2", 1, {1});
  ReportDiff diff;
  diff.groups.push_back(
      groupOf("A", {changed(r1, std::nan(""), 0, 0), changed(r2, -0.1, -0.2, -0.05)}));
  EXPECT_EQ(worstRow(diff), &diff.groups[0].rows[1]);
}

TEST(ReportDiff, WorstRowIsNullWhenNothingWasCompared) {
  ReportDiff diff;
  GroupDiff sentinel;
  const GroupDiff* group = &sentinel;
  EXPECT_EQ(worstRow(diff, &group), nullptr);
  EXPECT_EQ(group, nullptr);
  diff.groups.push_back(groupOf("A", {}));
  diff.groups[0].onlyInBase = {"1M/1R"};
  group = &sentinel;
  EXPECT_EQ(worstRow(diff, &group), nullptr);
  EXPECT_EQ(group, nullptr);
}

TEST(ReportDiff, WorstRowOfACompareReportsResult) {
  const auto base = ddpReport({ddpSeries("resnet50", 32, "1M/1R", 1, around(0.1, 0.01)),
                               ddpSeries("resnet50", 32, "1M/2R", 2, around(0.1, 0.01)),
                               ddpSeries("resnet50", 32, "1M/4R", 4, around(0.1, 0.01))});
  const auto test = ddpReport({ddpSeries("resnet50", 32, "1M/1R", 1, around(0.105, 0.01)),
                               ddpSeries("resnet50", 32, "1M/2R", 2, around(0.125, 0.01)),
                               ddpSeries("resnet50", 32, "1M/4R", 4, around(0.09, 0.01))});
  const ReportDiff diff = compareReports(base, test, {});
  const GroupDiff* group = nullptr;
  const RowDiff* worst = worstRow(diff, &group);
  ASSERT_NE(worst, nullptr);
  EXPECT_EQ(worst->base->row, "1M/2R");
  EXPECT_NEAR(worst->median.pointChange, 0.25, 1e-9);
  ASSERT_NE(group, nullptr);
  EXPECT_EQ(group->group, "resnet50 with batch size 32");
}

TEST(ReportDiff, AnyRegressionIsAnyComparedRowRegressed) {
  const Series s = ddpSeries("a", 1, "r", 1, {1});
  ReportDiff diff;
  EXPECT_FALSE(anyRegression(diff));
  diff.groups.push_back(groupOf("A", {changed(s, 0.1, 0.05, 0.15)}));
  diff.groups.push_back(groupOf("B", {changed(s, 0.1, 0.05, 0.15), changed(s, 0.1, 0.05, 0.15)}));
  EXPECT_FALSE(anyRegression(diff)) << "only the flag counts, not the change";
  diff.groups[1].rows[1].regressed = true;
  EXPECT_TRUE(anyRegression(diff));
}

TEST(ReportDiff, RejectsPercentilesOutOfRange) {
  const auto r = ddpReport({ddpSeries("resnet50", 32, "1M/2R", 2, around(0.1, 0.01))});
  DiffOptions options;
  options.percentiles = {75, 101};
  EXPECT_THROW(compareReports(r, r, options), std::invalid_argument);
}

TEST(ReportDiff, ABaseThatPoolsRunsIsResampledRunByRun) {
  // Five runs of unchanged code whose levels drift by a few percent, and a
  // sixth 6% slower than their median: within the drift.
  Series pooled = ddpSeries("resnet50", 32, "1M/2R", 2, {});
  for (double level : {0.96, 1.0, 1.03, 0.98, 1.05}) {
    for (double s : around(level, 0.01)) pooled.samples.push_back(s);
    pooled.runSamples.push_back(30);
  }
  const auto test = ddpReport({ddpSeries("resnet50", 32, "1M/2R", 2, around(1.06, 0.01))});
  DiffOptions options;
  options.thresholdPercent = 5;
  const RowDiff byRun = compareReports(ddpReport({pooled}), test, options).groups[0].rows[0];
  EXPECT_GT(byRun.median.pointChange, 0.05);
  EXPECT_FALSE(byRun.regressed) << "[" << byRun.median.low << ", " << byRun.median.high << "]";

  pooled.runSamples.clear();  // the same samples as if they were one run
  const RowDiff bySample = compareReports(ddpReport({pooled}), test, options).groups[0].rows[0];
  EXPECT_TRUE(bySample.regressed);
}

}  // namespace
}  // namespace distbench::report
