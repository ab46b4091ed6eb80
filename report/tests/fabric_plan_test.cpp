#include "distbench/report/fabric_plan.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <utility>

namespace distbench::report {
namespace {

using Pair = std::pair<int, int>;

// Every pair once, rounds disjoint, pairs ordered, the round count the
// circle method promises.
void expectRoundRobin(int n) {
  const std::vector<FabricRound> rounds = roundRobinRounds(n);
  EXPECT_EQ(static_cast<int>(rounds.size()), n < 2 ? 0 : (n % 2 == 0 ? n - 1 : n)) << n;
  std::set<Pair> seen;
  for (const FabricRound& round : rounds) {
    std::set<int> busy;
    for (const auto& [a, b] : round) {
      EXPECT_LT(a, b);
      EXPECT_GE(a, 0);
      EXPECT_LT(b, n);
      EXPECT_TRUE(busy.insert(a).second) << "node " << a << " twice in a round, n " << n;
      EXPECT_TRUE(busy.insert(b).second) << "node " << b << " twice in a round, n " << n;
      EXPECT_TRUE(seen.insert({a, b}).second) << a << "-" << b << " twice, n " << n;
    }
    EXPECT_GE(static_cast<int>(busy.size()), n - 1) << "at most one rests, n " << n;
  }
  EXPECT_EQ(static_cast<int>(seen.size()), n * (n - 1) / 2) << n;
}

TEST(FabricPlan, RoundRobinMeasuresEveryPairOnceInDisjointRounds) {
  for (int n = 0; n <= 33; ++n) expectRoundRobin(n);
}

FabricMeasurements nodes(int n, int groupSize = 0) {
  FabricMeasurements m;
  for (int i = 0; i < n; ++i) {
    const std::string group = groupSize > 0 ? "rack" + std::to_string(i / groupSize) : "";
    m.nodes.push_back({i, "trainer" + std::to_string(i), "", group});
  }
  return m;
}

void measure(FabricMeasurements& m, const FabricRound& round, int index) {
  for (const auto& [a, b] : round) m.pairs.push_back({a, b, 1 << 20, {1e-3}, {1e-3}, index});
}

TEST(FabricPlan, UpToAllPairsUpToItMeasuresTheRoundRobinInOrder) {
  FabricMeasurements m = nodes(8);
  const std::vector<FabricRound> expected = roundRobinRounds(8);
  for (size_t r = 0; r < expected.size(); ++r) {
    const FabricRound next = planNextRound(m, {});
    EXPECT_EQ(next, expected[r]) << "round " << r;
    measure(m, next, static_cast<int>(r));
  }
  EXPECT_TRUE(planNextRound(m, {}).empty());
}

TEST(FabricPlan, ARoundCutShortIsCompletedFirst) {
  FabricMeasurements m = nodes(6);
  const std::vector<FabricRound> rounds = roundRobinRounds(6);
  measure(m, rounds[0], 0);
  measure(m, {rounds[1][0]}, 1);
  const FabricRound next = planNextRound(m, {});
  EXPECT_EQ(next, FabricRound(rounds[1].begin() + 1, rounds[1].end()));
}

// Past allPairsUpTo, the first pass: every node has at least three peers,
// rounds disjoint, no pair twice, the same plan for the same seed.
TEST(FabricPlan, FirstPassCoversEveryNodeThreeTimesDeterministically) {
  FabricPlanOptions options;
  options.seed = 7;
  FabricMeasurements m = nodes(64);
  std::vector<FabricRound> plan;
  for (int r = 0; r < 100; ++r) {
    const FabricRound next = planNextRound(m, options);
    if (next.empty()) break;
    plan.push_back(next);
    measure(m, next, r);
  }
  ASSERT_GE(plan.size(), 3u);
  std::vector<int> peers(64, 0);
  std::set<Pair> seen;
  for (const FabricRound& round : plan) {
    std::set<int> busy;
    for (const auto& [a, b] : round) {
      EXPECT_TRUE(busy.insert(a).second && busy.insert(b).second);
      EXPECT_TRUE(seen.insert({a, b}).second);
      ++peers[a];
      ++peers[b];
    }
  }
  for (int i = 0; i < 64; ++i) EXPECT_GE(peers[i], 3) << "node " << i;

  FabricMeasurements again = nodes(64);
  EXPECT_EQ(planNextRound(again, options), plan[0]);
  options.seed = 8;
  EXPECT_NE(planNextRound(again, options), plan[0]);
}

// With groups, the first pass crosses every pair of groups at least twice.
TEST(FabricPlan, FirstPassCrossesEveryPairOfGroups) {
  FabricMeasurements m = nodes(128, 16);
  for (int r = 0; r < 200; ++r) {
    const FabricRound next = planNextRound(m, {});
    if (next.empty()) break;
    measure(m, next, r);
  }
  std::map<Pair, int> crossings;
  for (const FabricPairSamples& p : m.pairs) {
    if (p.a / 16 != p.b / 16) ++crossings[{p.a / 16, p.b / 16}];
  }
  EXPECT_EQ(crossings.size(), 8u * 7u / 2u);
  for (const auto& [groups, count] : crossings) {
    EXPECT_GE(count, 2) << "groups " << groups.first << " and " << groups.second;
  }
  EXPECT_LE(static_cast<double>(m.pairs.size()), 0.10 * 128 * 127 / 2);
}

}  // namespace
}  // namespace distbench::report
