// The Fabric kind's planner (fabric_plan.h). Everything it returns is
// computed again from the nodes, the options and what has been measured, so
// the master and the simulator agree round for round and a restarted master
// picks up where it stopped.
#include "distbench/report/fabric_plan.h"

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>

#include "distbench/report/bootstrap.h"
#include "fabric_plan_internal.h"

namespace distbench::report {
namespace {

using Pair = std::pair<int, int>;

Pair ordered(int a, int b) { return a < b ? Pair{a, b} : Pair{b, a}; }

std::set<Pair> measuredPairs(const FabricMeasurements& m) {
  std::set<Pair> measured;
  for (const FabricPairSamples& p : m.pairs) measured.insert(ordered(p.a, p.b));
  return measured;
}

void shuffle(std::vector<int>& v, std::mt19937_64& rng) {
  for (size_t i = v.size(); i > 1; --i) {
    const size_t j = UniformIndex(i)(rng);
    std::swap(v[i - 1], v[j]);
  }
}

// A random matching of `nodes` (one rests when odd) whose pairs are not in
// `taken`: reshuffled a few times, then the pairs that still repeat are
// dropped, so the round stays disjoint and new.
FabricRound randomMatching(std::vector<int> nodes, std::set<Pair>& taken, std::mt19937_64& rng) {
  FabricRound best;
  for (int attempt = 0; attempt < 8; ++attempt) {
    shuffle(nodes, rng);
    FabricRound round;
    for (size_t i = 0; i + 1 < nodes.size(); i += 2) {
      const Pair p = ordered(nodes[i], nodes[i + 1]);
      if (!taken.count(p)) round.push_back(p);
    }
    if (round.size() > best.size()) best = round;
    if (best.size() == nodes.size() / 2) break;
  }
  for (const Pair& p : best) taken.insert(p);
  std::sort(best.begin(), best.end());
  return best;
}

}  // namespace

std::vector<FabricRound> roundRobinRounds(int n) {
  std::vector<FabricRound> rounds;
  if (n < 2) return rounds;
  // The circle method: m - 1 seats turn around a fixed one; with an odd n a
  // phantom node m - 1 = n takes the fixed seat and its partner rests.
  const int m = n % 2 == 0 ? n : n + 1;
  for (int r = 0; r < m - 1; ++r) {
    FabricRound round;
    if (m - 1 < n) round.push_back(ordered(r, m - 1));
    for (int i = 1; i < m / 2; ++i) {
      round.push_back(ordered((r + i) % (m - 1), (r - i + m - 1) % (m - 1)));
    }
    std::sort(round.begin(), round.end());
    rounds.push_back(round);
  }
  return rounds;
}

namespace fabric_detail {

std::vector<std::vector<int>> nodeGroups(const std::vector<FabricNode>& nodes) {
  std::map<std::string, int> index;
  std::vector<std::vector<int>> groups;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    const std::string& g = nodes[i].group;
    if (g.empty()) {
      groups.push_back({i});
      continue;
    }
    const auto [it, added] = index.emplace(g, static_cast<int>(groups.size()));
    if (added) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  return groups;
}

std::vector<FabricRound> firstPass(const std::vector<FabricNode>& nodes,
                                   const FabricPlanOptions& options) {
  const int n = static_cast<int>(nodes.size());
  std::mt19937_64 rng(options.seed);
  std::set<Pair> taken;
  std::vector<FabricRound> rounds;
  std::vector<int> all(n);
  for (int i = 0; i < n; ++i) all[i] = i;
  // Three peers each: one slow peer of three says "a link", all three "the node".
  for (int k = 0; k < kFirstPassMatchings; ++k) rounds.push_back(randomMatching(all, taken, rng));

  // Every pair of groups, a few node pairs each: a bad link between two
  // leaves slows every pair across it, and only pairs across it show it.
  const std::vector<std::vector<int>> groups = nodeGroups(nodes);
  const int g = static_cast<int>(groups.size());
  if (g < 2 || g == n) return rounds;
  const double allPairs = 0.5 * n * (n - 1.0);
  const double groupPairs = 0.5 * g * (g - 1.0);
  // A third of the budget for the group pass, at least kPairsPerGroupPair.
  const int perGroupPair = std::max(
      kPairsPerGroupPair, static_cast<int>(options.maxPairShare * allPairs / 3 / groupPairs));
  for (const FabricRound& groupRound : roundRobinRounds(g)) {
    FabricRound round;
    for (const auto& [x, y] : groupRound) {
      std::vector<int> left = groups[x], right = groups[y];
      shuffle(left, rng);
      shuffle(right, rng);
      const size_t count = std::min({left.size(), right.size(), static_cast<size_t>(perGroupPair)});
      for (size_t i = 0; i < count; ++i) {
        const Pair p = ordered(left[i], right[i]);
        if (taken.insert(p).second) round.push_back(p);
      }
    }
    std::sort(round.begin(), round.end());
    if (!round.empty()) rounds.push_back(round);
  }
  return rounds;
}

}  // namespace fabric_detail

FabricRound planNextRound(const FabricMeasurements& sofar, const FabricPlanOptions& options) {
  const int n = static_cast<int>(sofar.nodes.size());
  const std::set<Pair> measured = measuredPairs(sofar);
  const std::vector<FabricRound> fixed = n <= options.allPairsUpTo
                                             ? roundRobinRounds(n)
                                             : fabric_detail::firstPass(sofar.nodes, options);
  // The first round not measured whole; of it, the pairs still missing (a
  // round cut short measures again only what it lacks).
  for (const FabricRound& round : fixed) {
    FabricRound missing;
    for (const Pair& p : round) {
      if (!measured.count(p)) missing.push_back(p);
    }
    if (!missing.empty()) return missing;
  }
  if (n <= options.allPairsUpTo) return {};
  return fabric_detail::suspectRound(sofar, options, measured);
}

}  // namespace distbench::report
