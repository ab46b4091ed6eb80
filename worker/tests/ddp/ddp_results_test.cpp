// The DDP rows of results.models (docs/report-schema.md#ddp): the pooled
// phases, each rank's own (perRank), and a DDP row's buckets.
#include "distbench/worker/ddp/ddp_results.h"

#include <cpprest/json.h>
#include <gtest/gtest.h>

#include <limits>

#include "distbench/api/presets.h"

namespace distbench::worker {
namespace {

using web::json::value;

DdpPhaseSamples samples(double iteration, double allreduceWait, int n) {
  DdpPhaseSamples s;
  s.iteration.assign(n, iteration);
  s.forward.assign(n, iteration / 4);
  s.backward.assign(n, iteration / 2);
  s.allreduceWait.assign(n, allreduceWait);
  s.optimizerStep.assign(n, iteration / 8);
  return s;
}

value rowsOf(const std::vector<DdpRowResult>& rows) {
  const api::DistBenchmark b = api::preset("ddp-cpu");
  report::Report r;
  addDdpResults(r, b.spec.benchmark.ddp, {{"smallcnn", rows}}, {30});
  return value::parse(r.resultsJson).at("models").at(0).at("rows");
}

TEST(DdpResults, RowsCarryEachRanksPhasesAndTheBuckets) {
  const std::vector<SweepRow> sweep = planDdpSweep(2, 8, false);
  const DdpRowResult baseline{sweep[0], {samples(0.1, 0, 3)}, {1}, {}};
  DdpRowResult two{sweep[2], {samples(0.2, 0.01, 3), samples(0.2, 0.05, 3)}, {1, 2}, {}};
  two.bucketsPerRank = {{{10, 80, 0.001, 0.002, 0.010}, {20, 40, 0.003, 0.004, 0.020}},
                        {{10, 80, 0.003, 0.004, 0.030}, {20, 40, 0.005, 0.006, 0.040}}};
  const value rows = rowsOf({baseline, two});

  const value& none = rows.at(0);
  ASSERT_EQ(none.at("perRank").size(), 1u);
  EXPECT_EQ(none.at("perRank").at(0).at("rank").as_integer(), 1);
  EXPECT_FALSE(none.has_field("buckets"));
  EXPECT_FALSE(none.has_field("gradientBytes"));

  const value& row = rows.at(1);
  const value& perRank = row.at("perRank");
  ASSERT_EQ(perRank.size(), 2u);
  EXPECT_EQ(perRank.at(0).at("rank").as_integer(), 1);
  EXPECT_EQ(perRank.at(1).at("rank").as_integer(), 2);
  for (const char* phase : {"iteration", "forward", "backward", "allreduceWait", "optimizerStep"}) {
    EXPECT_EQ(perRank.at(1).at("phases").at(phase).at("count").as_integer(), 3) << phase;
  }
  // Not pooled: each rank's own wait.
  EXPECT_DOUBLE_EQ(perRank.at(0).at("phases").at("allreduceWait").at("p50").as_double(), 0.01);
  EXPECT_DOUBLE_EQ(perRank.at(1).at("phases").at("allreduceWait").at("p50").as_double(), 0.05);
  // Every iteration of each rank, in order, for the straggler test's interval.
  const value& waits = perRank.at(1).at("phaseSamples").at("allreduceWait");
  ASSERT_EQ(waits.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(waits.at(i).as_double(), 0.05);
  EXPECT_EQ(perRank.at(0).at("phaseSamples").at("iteration").size(), 3u);
  EXPECT_EQ(perRank.at(0).at("phaseSamples").size(), 5u);  // the five phases
  // The pooled phases stay as they were: six samples, no iteration key.
  EXPECT_EQ(row.at("phases").at("allreduceWait").at("count").as_integer(), 6);
  EXPECT_FALSE(row.at("phases").has_field("iteration"));

  EXPECT_EQ(row.at("gradientBytes").as_integer(), 120);
  const value& buckets = row.at("buckets");
  ASSERT_EQ(buckets.size(), 2u);
  EXPECT_EQ(buckets.at(0).at("index").as_integer(), 0);
  EXPECT_EQ(buckets.at(0).at("parameters").as_integer(), 10);
  EXPECT_EQ(buckets.at(0).at("bytes").as_integer(), 80);
  EXPECT_DOUBLE_EQ(buckets.at(0).at("firstGradient").as_double(), 0.002);
  EXPECT_DOUBLE_EQ(buckets.at(0).at("launched").as_double(), 0.003);
  EXPECT_DOUBLE_EQ(buckets.at(0).at("completed").as_double(), 0.020);
  EXPECT_EQ(buckets.at(1).at("index").as_integer(), 1);
  EXPECT_DOUBLE_EQ(buckets.at(1).at("completed").as_double(), 0.030);
}

// JSON has no NaN: a completion no rank recorded is null.
TEST(DdpResults, AnUnrecordedMomentIsNull) {
  const std::vector<SweepRow> sweep = planDdpSweep(1, 8, false);
  const DdpRowResult baseline{sweep[0], {samples(0.1, 0, 2)}, {1}, {}};
  DdpRowResult one{sweep[1], {samples(0.1, 0, 2)}, {1}, {}};
  one.bucketsPerRank = {{{1, 4, 0.1, 0.2, std::numeric_limits<double>::quiet_NaN()}}};
  const value rows = rowsOf({baseline, one});
  EXPECT_TRUE(rows.at(1).at("buckets").at(0).at("completed").is_null());
  EXPECT_DOUBLE_EQ(rows.at(1).at("buckets").at(0).at("launched").as_double(), 0.2);
}

// JSON has no infinity either: a row whose iterations took 0 s (a clock
// too coarse) has no rate and no efficiency, and the report stays readable.
TEST(DdpResults, ARateOverZeroSecondsIsNull) {
  const std::vector<SweepRow> sweep = planDdpSweep(1, 8, false);
  const DdpRowResult baseline{sweep[0], {samples(0.1, 0, 2)}, {1}, {}};
  const DdpRowResult instant{sweep[1], {samples(0, 0, 2)}, {1}, {}};
  const value rows = rowsOf({baseline, instant});
  EXPECT_TRUE(rows.at(1).at("aggregateExamplesPerSecond").at("p50").is_null());
  EXPECT_TRUE(rows.at(1).at("scalingEfficiency").is_null());
  EXPECT_TRUE(rows.at(0).at("aggregateExamplesPerSecond").at("p50").is_number());
}

}  // namespace
}  // namespace distbench::worker
