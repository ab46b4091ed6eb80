// The DDP sweep's rows and the seed's table layout.
#include "distbench/worker/ddp/ddp_sweep.h"

#include <gtest/gtest.h>

#include "distbench/worker/ddp/ddp_results.h"

namespace distbench::worker {
namespace {

std::vector<std::string> labels(const std::vector<SweepRow>& rows) {
  std::vector<std::string> out;
  for (const SweepRow& r : rows) out.push_back(r.label + "=" + std::to_string(r.ranks));
  return out;
}

TEST(DdpSweep, FollowsTheSeedOnEightGpuMachines) {
  // The seed's sweep with 16 GPUs: no ddp, 1M/1G, 1M/2G, 1M/4G, 1M/8G, 2M/8G.
  EXPECT_EQ(labels(planDdpSweep(16, 8, true)),
            (std::vector<std::string>{"no ddp=1", "1M/1G=1", "1M/2G=2", "1M/4G=4", "1M/8G=8",
                                      "2M/8G=16"}));
}

TEST(DdpSweep, SmallAndOddWorldsEndWithEveryRank) {
  EXPECT_EQ(labels(planDdpSweep(1, 8, false)), (std::vector<std::string>{"no ddp=1", "1M/1R=1"}));
  EXPECT_EQ(labels(planDdpSweep(2, 8, false)),
            (std::vector<std::string>{"no ddp=1", "1M/1R=1", "1M/2R=2"}));
  EXPECT_EQ(labels(planDdpSweep(3, 8, false)),
            (std::vector<std::string>{"no ddp=1", "1M/1R=1", "1M/2R=2", "1M/3R=3"}));
  EXPECT_EQ(labels(planDdpSweep(6, 2, false)),
            (std::vector<std::string>{"no ddp=1", "1M/1R=1", "1M/2R=2", "2M/2R=4", "3M/2R=6"}));
}

TEST(DdpSweep, OnlyTheBaselineRunsWithoutDdp) {
  const std::vector<SweepRow> rows = planDdpSweep(4, 4, false);
  EXPECT_FALSE(rows[0].ddp);
  for (size_t i = 1; i < rows.size(); ++i) EXPECT_TRUE(rows[i].ddp) << rows[i].label;
  EXPECT_EQ(rows.back().machines, 1);
  EXPECT_EQ(rows.back().ranksPerMachine, 4);
}

TEST(DdpSweep, RowPrefixIsTheSeeds) {
  SweepRow baseline{"no ddp", 1, 1, 1, false};
  EXPECT_EQ(sweepRowPrefix(baseline, true), "   1 GPUs --   no ddp");
  EXPECT_EQ(sweepRowPrefix(planDdpSweep(2, 8, false)[2], false), "   2 ranks --    1M/2R");
}

DdpPhaseSamples constant(double seconds, int n) {
  DdpPhaseSamples s;
  s.iteration.assign(n, seconds);
  for (auto* v : {&s.forward, &s.backward, &s.allreduceWait, &s.optimizerStep}) {
    v->assign(n, seconds / 4);
  }
  return s;
}

TEST(DdpResults, RowShowsSeedColumnsThenAggregateAndEfficiency) {
  const std::vector<SweepRow> rows = planDdpSweep(2, 8, false);
  DdpRowResult baseline{rows[0], {constant(0.1, 4)}, {1}, {}};
  DdpRowResult two{rows[2], {constant(0.125, 4), constant(0.125, 4)}, {1, 2}, {}};
  EXPECT_EQ(formatDdpRow(two, 32, baseline, false),
            "   2 ranks --    1M/2R:  p50:  0.125s     256/s  p75:  0.125s     256/s"
            "  p90:  0.125s     256/s  p95:  0.125s     256/s        512/s   80.0%\n");
  const std::string header = formatDdpHeader("resnet18", 32, false);
  EXPECT_EQ(header.substr(0, 42), "\nBenchmark: resnet18 with batch size 32\n\n ");
  // Header columns line up with the row's: same width.
  const std::string columns = header.substr(header.rfind('\n', header.size() - 2) + 1);
  EXPECT_EQ(columns.size(), formatDdpRow(two, 32, baseline, false).size()) << columns;
}

TEST(DdpResults, PhaseSamplesSurviveTheTripToTheMaster) {
  DdpPhaseSamples s;
  s.iteration = {1, 2};
  s.forward = {3, 4};
  s.backward = {5, 6};
  s.allreduceWait = {7, 8};
  s.optimizerStep = {9, 10};
  const DdpPhaseSamples back = DdpPhaseSamples::unflatten(s.flatten(), 2);
  EXPECT_EQ(back.iteration, s.iteration);
  EXPECT_EQ(back.optimizerStep, s.optimizerStep);
  EXPECT_THROW(DdpPhaseSamples::unflatten({1, 2, 3}, 2), std::runtime_error);
}

TEST(DdpResults, ReportHasASeriesPerRowAndTheDerivedFigures) {
  const std::vector<SweepRow> rows = planDdpSweep(2, 8, false);
  DdpModelResult model{"resnet18",
                       {{rows[0], {constant(0.1, 3)}},
                        {rows[1], {constant(0.1, 3)}},
                        {rows[2], {constant(0.2, 3), constant(0.2, 3)}}}};
  api::DDPSpec spec;
  spec.batchSize = 8;
  spec.imageSize = 64;
  report::Report r;
  addDdpResults(r, spec, {model}, {11689512});
  ASSERT_EQ(r.series.size(), 3u);
  EXPECT_EQ(r.series[2].group, "resnet18 with batch size 8");
  EXPECT_EQ(r.series[2].groupKey.at("imageSize"), "64");
  EXPECT_EQ(r.series[2].row, "1M/2R");
  EXPECT_EQ(r.series[2].ranks, 2);
  EXPECT_EQ(r.series[2].samples.size(), 6u);  // both ranks pooled
  EXPECT_DOUBLE_EQ(r.series[2].workPerSample, 8);
  EXPECT_NE(r.resultsJson.find("\"scalingEfficiency\":0.5"), std::string::npos) << r.resultsJson;
  EXPECT_NE(r.resultsJson.find("\"parameters\":11689512"), std::string::npos);
  EXPECT_NE(r.resultsJson.find("\"allreduceWait\""), std::string::npos);
}

}  // namespace
}  // namespace distbench::worker
