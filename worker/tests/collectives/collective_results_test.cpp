#include "distbench/worker/collectives/collective_results.h"

#include <cpprest/json.h>
#include <gtest/gtest.h>

#include <stdexcept>

#include "distbench/worker/collectives/collectives_benchmark.h"

namespace distbench::worker {
namespace {

using api::CollectiveOp;
using api::DType;

const std::vector<CollectiveCase> kPlan{
    {CollectiveOp::AllReduce, DType::Float32, 3000000, 750000},
    {CollectiveOp::AllGather, DType::Float64, 8000000, 1000000},
    {CollectiveOp::AllGather, DType::Float64, 16000000, 2000000}};

// [rank][case][iteration], in milliseconds for legibility.
std::vector<std::vector<std::vector<double>>> fourRanks() {
  std::vector<std::vector<std::vector<double>>> ms{
      {{1, 4, 2}, {2, 2}, {8}},
      {{2, 1, 3}, {2, 2}, {8}},
      {{0.5, 0.5, 0.5}, {2, 6}, {8}},
      {{1, 1, 1}, {2, 2}, {7}},
  };
  for (auto& rank : ms) {
    for (auto& c : rank) {
      for (double& t : c) t /= 1000;
    }
  }
  return ms;
}

std::string implementation(CollectiveOp op) {
  return op == CollectiveOp::AllReduce ? "gloo allreduce" : "";
}

TEST(CollectiveResults, EachIterationIsTheSlowestRank) {
  auto results = combineRanks(kPlan, fourRanks(), 4, implementation);
  ASSERT_EQ(results.size(), 3u);
  ASSERT_EQ(results[0].samples.size(), 3u);
  EXPECT_DOUBLE_EQ(results[0].samples[0], 0.002);
  EXPECT_DOUBLE_EQ(results[0].samples[1], 0.004);
  EXPECT_DOUBLE_EQ(results[0].samples[2], 0.003);
  EXPECT_EQ(results[0].c, kPlan[0]);
  EXPECT_EQ(results[1].samples, (std::vector<double>{0.002, 0.006}));
}

TEST(CollectiveResults, LatencyAndBandwidthFromTheMedian) {
  auto results = combineRanks(kPlan, fourRanks(), 4, implementation);
  // allreduce: max per iteration 2, 4, 3 ms.
  const auto& a = results[0];
  EXPECT_NEAR(a.p50, 0.003, 1e-12);
  EXPECT_NEAR(a.p95, 0.0039, 1e-12);  // 3 + 0.9 * (4 - 3) ms
  EXPECT_DOUBLE_EQ(a.min, 0.002);
  EXPECT_DOUBLE_EQ(a.max, 0.004);
  EXPECT_NEAR(a.algbwGBps, 1.0, 1e-9);   // 3 MB in 3 ms
  EXPECT_DOUBLE_EQ(a.busbwFactor, 1.5);  // 2 * 3 / 4
  EXPECT_NEAR(a.busbwGBps, 1.5, 1e-9);
  EXPECT_EQ(a.implementation, "gloo allreduce");
  // allgather: 2 and 6 ms.
  const auto& g = results[1];
  EXPECT_NEAR(g.p50, 0.004, 1e-12);
  EXPECT_NEAR(g.p95, 0.0058, 1e-12);
  EXPECT_NEAR(g.algbwGBps, 2.0, 1e-9);  // 8 MB in 4 ms
  EXPECT_DOUBLE_EQ(g.busbwFactor, 0.75);
  EXPECT_NEAR(g.busbwGBps, 1.5, 1e-9);
  EXPECT_EQ(g.implementation, "");
  EXPECT_NEAR(results[2].p50, 0.008, 1e-12);  // rank 3's 7 ms is not the slowest
}

// Times of 0 s (a clock too coarse for the size): no bandwidth, and the
// results stay JSON that reads back (JSON has no infinity).
TEST(CollectiveResults, AMedianOfZeroSecondsHasNoBandwidth) {
  std::vector<std::vector<std::vector<double>>> zero = fourRanks();
  for (auto& rank : zero) rank[0] = {0, 0, 0};
  const auto results = combineRanks(kPlan, zero, 4, implementation);
  report::Report r;
  addCollectivesResults(r, 4, results);
  web::json::value v;
  ASSERT_NO_THROW(v = web::json::value::parse(r.resultsJson)) << r.resultsJson;
  EXPECT_TRUE(v.at("ops").at(0).at("algbwGBps").is_null()) << r.resultsJson;
  EXPECT_TRUE(v.at("ops").at(0).at("busbwGBps").is_null()) << r.resultsJson;
  EXPECT_NEAR(v.at("ops").at(1).at("algbwGBps").as_double(), 2.0, 1e-9);
}

TEST(CollectiveResults, RejectsMismatchedShapes) {
  auto perRank = fourRanks();
  EXPECT_THROW(combineRanks(kPlan, perRank, 3, implementation), std::invalid_argument);
  auto missingCase = perRank;
  missingCase[2].pop_back();
  EXPECT_THROW(combineRanks(kPlan, missingCase, 4, implementation), std::invalid_argument);
  auto shortRank = perRank;
  shortRank[1][0].pop_back();
  try {
    combineRanks(kPlan, shortRank, 4, implementation);
    FAIL() << "expected a throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("allreduce float32 of 3000000 B: rank 1 reported 2"),
              std::string::npos)
        << e.what();
  }
}

TEST(CollectiveResults, TableHasABlockPerOpAndDtype) {
  auto results = combineRanks(kPlan, fourRanks(), 4, implementation);
  const std::string header =
      "      size (B)  count (elts)    p50 (us)    p95 (us)    min (us)    max (us)"
      "  algbw (GB/s)  busbw (GB/s)\n";
  const std::string expected =
      "Benchmark: allreduce float32 on 4 ranks\n"
      "Implementation: gloo allreduce\n" +
      header +
      "       3000000        750000      3000.0      3900.0      2000.0      4000.0"
      "         1.000         1.500\n"
      "\n"
      "Benchmark: allgather float64 on 4 ranks\n" +
      header +
      "       8000000       1000000      4000.0      5800.0      2000.0      6000.0"
      "         2.000         1.500\n"
      "      16000000       2000000      8000.0      8000.0      8000.0      8000.0"
      "         2.000         1.500\n";
  EXPECT_EQ(formatCollectivesTable(results, 4), expected);
}

TEST(CollectiveResults, EmptyResultsGiveAnEmptyTable) {
  EXPECT_EQ(formatCollectivesTable({}, 2), "");
}

}  // namespace
}  // namespace distbench::worker
