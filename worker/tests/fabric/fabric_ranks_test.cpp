// The Fabric trainers' measuring parts as Gloo ranks in threads: the
// compute probe, one pair's timed transfers, and the rounds that cover
// every pair of the group once per size, the same on every rank.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <mutex>

#include "distbench/report/fabric_plan.h"
#include "distbench/worker/fabric/compute_probe.h"
#include "distbench/worker/fabric/fabric_rounds.h"
#include "distbench/worker/fabric/pair_transfer.h"
#include "support/thread_ranks.h"

namespace distbench::worker {
namespace {

TEST(FabricRanks, ComputeProbeTimesEachSample) {
  EXPECT_DOUBLE_EQ(gemmFlop(512), 2.0 * 512 * 512 * 512);
  const std::vector<double> s =
      runComputeProbe(ComputeDevice::cpu(), 64, 1, 5, std::chrono::seconds(10));
  ASSERT_EQ(s.size(), 5u);
  for (double x : s) EXPECT_GT(x, 0.0);
  EXPECT_THROW(runComputeProbe(ComputeDevice::cpu(), 0, 0, 1, std::chrono::seconds(1)),
               std::invalid_argument);
  EXPECT_THROW(runComputeProbe(ComputeDevice::cpu(), 8, 0, 0, std::chrono::seconds(1)),
               std::invalid_argument);
}

TEST(FabricRanks, PairMeasuresEachSizeInBothDirections) {
  PairTransferPlan plan{{16, 65536}, 1, 3};
  std::vector<std::vector<std::vector<double>>> got(2);
  runRanks(2, "fabric-pair",
           [&](int rank, ProcessGroup& group) { got[rank] = measurePair(group, 1 - rank, plan); });
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(got[r].size(), 2u) << "rank " << r;
    for (const auto& size : got[r]) {
      ASSERT_EQ(size.size(), 3u) << "rank " << r;
      for (double x : size) EXPECT_GT(x, 0.0);
    }
  }
}

// allPairsUpTo 16: the round robin in passes; 2: the planner round by round.
void everyPairOncePerSize(int world, int allPairsUpTo = 16) {
  PairTransferPlan transfers{{8, 4096}, 0, 2};
  report::FabricPlanOptions options;
  options.allPairsUpTo = allPairsUpTo;
  std::vector<report::FabricMeasurements> seen(world);
  std::vector<std::vector<FabricReceived>> received(world);
  runRanks(world, "fabric-rounds" + std::to_string(world), [&](int rank, ProcessGroup& group) {
    report::FabricMeasurements m;
    for (int t = 0; t < world; ++t) {
      report::FabricNode node;
      node.rank = t + 1;
      node.name = "trainer" + std::to_string(t);
      m.nodes.push_back(node);
    }
    received[rank] = runFabricRounds(group, transfers, options, m);
    seen[rank] = m;
  });
  const report::FabricMeasurements& m = seen[0];
  const size_t pairs = static_cast<size_t>(world * (world - 1) / 2);
  if (allPairsUpTo < world) {
    // The planner's first pass covers every node, each pair at most once.
    std::set<int> covered;
    std::set<std::tuple<int, int, int64_t>> unique;
    for (const report::FabricPairSamples& p : m.pairs) {
      covered.insert(p.a), covered.insert(p.b);
      EXPECT_TRUE(unique.insert({p.a, p.b, p.bytes}).second);
      EXPECT_EQ(p.aToB.size(), 2u);
      EXPECT_EQ(p.bToA.size(), 2u);
    }
    EXPECT_EQ(covered.size(), static_cast<size_t>(world));
    for (int r = 1; r < world; ++r) EXPECT_EQ(seen[r].pairs.size(), m.pairs.size());
    return;
  }
  ASSERT_EQ(m.pairs.size(), pairs * 2);
  std::set<std::tuple<int, int, int64_t>> unique;
  for (const report::FabricPairSamples& p : m.pairs) {
    EXPECT_LT(p.a, p.b);
    EXPECT_TRUE(unique.insert({p.a, p.b, p.bytes}).second) << p.a << "-" << p.b << " " << p.bytes;
    ASSERT_EQ(p.aToB.size(), 2u);
    ASSERT_EQ(p.bToA.size(), 2u);
    for (double x : p.aToB) EXPECT_GT(x, 0.0);
    for (double x : p.bToA) EXPECT_GT(x, 0.0);
  }
  // The circle method: N - 1 rounds for even N, N for odd.
  int rounds = 0;
  for (const report::FabricPairSamples& p : m.pairs) rounds = std::max(rounds, p.round + 1);
  EXPECT_EQ(rounds, world % 2 == 0 ? world - 1 : world);
  // Every rank holds the same samples, and received its peers' share.
  for (int r = 1; r < world; ++r) {
    ASSERT_EQ(seen[r].pairs.size(), m.pairs.size());
    for (size_t i = 0; i < m.pairs.size(); ++i) {
      EXPECT_EQ(seen[r].pairs[i].aToB, m.pairs[i].aToB);
      EXPECT_EQ(seen[r].pairs[i].bToA, m.pairs[i].bToA);
    }
  }
  for (int r = 0; r < world; ++r) {
    EXPECT_EQ(received[r].size(), static_cast<size_t>((world - 1) * 2)) << "rank " << r;
  }
}

TEST(FabricRanks, RoundsMeasureEveryPairOncePerSizeOnFourRanks) { everyPairOncePerSize(4); }
TEST(FabricRanks, RoundsMeasureEveryPairOncePerSizeOnFiveRanks) { everyPairOncePerSize(5); }
TEST(FabricRanks, PastAllPairsUpToThePlannerCoversEveryNode) { everyPairOncePerSize(4, 2); }

}  // namespace
}  // namespace distbench::worker
