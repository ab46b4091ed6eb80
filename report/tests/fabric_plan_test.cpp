#include "distbench/report/fabric_plan.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>

#include "distbench/report/fabric_simulate.h"
#include "distbench/report/fabric_verdict.h"

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

namespace distbench::report {
namespace {

// Runs the plan to its end on a made-up fabric; returns the measurements.
FabricMeasurements runPlan(const FabricWorld& w, const FabricPlanOptions& options,
                           int* rounds = nullptr) {
  std::mt19937_64 rng(w.seed);
  FabricMeasurements m = startMeasurements(w, rng);
  int r = 0;
  for (; r < 1000; ++r) {
    const FabricRound next = planNextRound(m, options);
    if (next.empty()) break;
    std::set<int> busy;
    for (const auto& [a, b] : next) {
      EXPECT_TRUE(busy.insert(a).second && busy.insert(b).second) << "round " << r;
    }
    measureRound(w, next, r, m, rng);
  }
  if (rounds) *rounds = r;
  return m;
}

int peersOf(const FabricMeasurements& m, int node) {
  std::set<int> peers;
  for (const FabricPairSamples& p : m.pairs) {
    if (p.a == node) peers.insert(p.b);
    if (p.b == node) peers.insert(p.a);
  }
  return static_cast<int>(peers.size());
}

// A bad node seen slow by its three first-pass peers gets more peers, from
// nodes known good, until six confirm it; the verdict then names it alone.
TEST(FabricPlan, ASuspectNodeGetsMorePeersUntilDecided) {
  FabricWorld w;
  w.nodes = fabricNodes(64);
  w.seed = 3;
  w.nodeFactor[17] = 0.3;
  const FabricMeasurements m = runPlan(w, {});
  EXPECT_GE(peersOf(m, 17), 6);
  EXPECT_LE(peersOf(m, 17), 16);
  const FabricVerdict v = judgeFabric(m);
  ASSERT_FALSE(v.suspects.empty());
  EXPECT_EQ(v.suspects[0].what, "node");
  EXPECT_EQ(v.suspects[0].nodes, std::vector<int>{17});
  for (size_t i = 1; i < v.suspects.size(); ++i) {
    EXPECT_NE(v.suspects[i].status, FabricStatus::Slow) << formatFabricVerdict(v, m);
  }
  // Nodes with nothing slow got the first pass only.
  EXPECT_LT(static_cast<double>(m.pairs.size()) / 2, 0.06 * 64 * 63 / 2);
}

// A slow pair of groups seen in the first pass gets more pairs across until
// the verdict can name the link between them.
TEST(FabricPlan, ASuspectPairOfGroupsGetsMorePairsAcross) {
  FabricWorld w;
  w.nodes = fabricNodes(64, 8);
  w.seed = 5;
  w.groupFactor[{"rack2", "rack5"}] = 0.4;
  int rounds = 0;
  const FabricMeasurements m = runPlan(w, {}, &rounds);
  int across = 0;
  for (const FabricPairSamples& p : m.pairs) {
    const int ga = p.a / 8, gb = p.b / 8;
    if (p.bytes == (1 << 20) && ((ga == 2 && gb == 5) || (ga == 5 && gb == 2))) ++across;
  }
  EXPECT_GE(across, 3);
  const FabricVerdict v = judgeFabric(m);
  ASSERT_FALSE(v.suspects.empty()) << formatFabricVerdict(v, m);
  EXPECT_EQ(v.suspects[0].what, "link");
  EXPECT_EQ(v.suspects[0].where, "group rack2 - rack5");
  EXPECT_EQ(v.suspects[0].nodes.size(), 16u);
  EXPECT_LE(v.pairsMeasured, static_cast<int>(0.10 * 64 * 63 / 2));
}

// Nothing measured past the budget once the first pass is done.
TEST(FabricPlan, TheBudgetBoundsTheRoundsAroundSuspects) {
  FabricWorld w;
  w.nodes = fabricNodes(64);
  w.seed = 9;
  w.sampleSigma = 0.3;
  for (int i = 0; i < 8; ++i) w.nodeFactor[i * 8] = 0.3;  // many suspects
  FabricPlanOptions options;
  options.maxPairShare = 0.06;  // 120 pairs; the first pass is 96
  const FabricMeasurements m = runPlan(w, options);
  std::set<std::pair<int, int>> pairs;
  for (const FabricPairSamples& p : m.pairs) pairs.insert({p.a, p.b});
  EXPECT_LE(pairs.size(), 120u);
  EXPECT_GT(pairs.size(), 96u);
}

}  // namespace
}  // namespace distbench::report
