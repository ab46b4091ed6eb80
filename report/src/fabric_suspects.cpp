// The planner's rounds after the first pass (fabric_plan_internal.h): the
// links judged as the verdict judges them (fabric_judge.h), then new pairs
// only where that judgement is undecided.
//  - A node with slow links gets more peers, drawn from nodes with no slow
//    or inconclusive link, in other groups where there are: if most of them
//    are slow too the node is slow; if they are fine, its slow link is a
//    link. A node named slow on few peers gets peers until kConfirmPeers.
//  - A pair of groups with a slow pair gets more pairs across, between
//    nodes known good, until kGroupPairs are measured: one slow pair of
//    many is that pair's link; most of them slow is the link between the
//    groups.
// One new peer per undecided node and two pairs per undecided pair of
// groups a round, all disjoint; no pair twice; nothing past the budget.
#include <algorithm>
#include <cmath>
#include <random>

#include "distbench/report/bootstrap.h"
#include "fabric_judge.h"
#include "fabric_plan_internal.h"

namespace distbench::report::fabric_detail {
namespace {

using Pair = std::pair<int, int>;

// A node named slow on fewer peers than this gets more, so that three
// unlucky peers of a good node cannot name it.
constexpr int kConfirmPeers = 6;
// A suspect node stops getting peers here, decided or not.
constexpr int kMaxSuspectPeers = 16;
// Pairs across two groups with a slow pair, measured before deciding.
constexpr int kGroupPairs = 6;
constexpr int kGroupPairsPerRound = 2;
// Random draws before a linear search for a free peer.
constexpr int kDraws = 64;

Pair ordered(int a, int b) { return a < b ? Pair{a, b} : Pair{b, a}; }

class RoundBuilder {
 public:
  RoundBuilder(int n, const std::set<Pair>& measured, uint64_t seed)
      : busy_(n, false), measured_(measured), rng_(seed) {}

  bool busy(int i) const { return busy_[i]; }
  bool fresh(int a, int b) const { return a != b && !measured_.count(ordered(a, b)); }

  void add(int a, int b) {
    busy_[a] = busy_[b] = true;
    round_.push_back(ordered(a, b));
  }

  // A free peer for `node` among `candidates` (random, then in order), one
  // `accept` allows; -1 when none.
  template <typename Accept>
  int pick(int node, const std::vector<int>& candidates, Accept accept) {
    if (candidates.empty()) return -1;
    const UniformIndex index(candidates.size());
    auto ok = [&](int c) { return !busy_[c] && fresh(node, c) && accept(c); };
    for (int d = 0; d < kDraws; ++d) {
      const int c = candidates[index(rng_)];
      if (ok(c)) return c;
    }
    for (int c : candidates) {
      if (ok(c)) return c;
    }
    return -1;
  }

  FabricRound take(size_t budget) {
    if (round_.size() > budget) round_.resize(budget);
    std::sort(round_.begin(), round_.end());
    return round_;
  }

 private:
  std::vector<bool> busy_;
  const std::set<Pair>& measured_;
  std::mt19937_64 rng_;
  FabricRound round_;
};

}  // namespace

FabricRound suspectRound(const FabricMeasurements& sofar, const FabricPlanOptions& options,
                         const std::set<Pair>& measured) {
  const int n = static_cast<int>(sofar.nodes.size());
  const double allPairs = 0.5 * n * (n - 1.0);
  const double budget = std::floor(options.maxPairShare * allPairs) - measured.size();
  if (budget < 1) return {};

  FabricJudgeOptions judge;
  judge.thresholdPercent = options.thresholdPercent;
  const FabricJudgement j = judgeLinks(sofar, judge);
  const std::vector<std::vector<int>> groups = nodeGroups(sofar.nodes);

  std::vector<int> good;  // measured, and no link slow or inconclusive
  for (int i = 0; i < n; ++i) {
    const FabricNodeVerdict& node = j.nodes[i];
    if (node.peersMeasured > 0 && node.slowPeers == 0 && j.inconclusivePeers[i] == 0) {
      good.push_back(i);
    }
  }
  std::vector<bool> wants(n, false);
  for (int i = 0; i < n; ++i) {
    const FabricNodeVerdict& node = j.nodes[i];
    if (node.peersMeasured >= kMaxSuspectPeers) continue;
    wants[i] = node.link == FabricStatus::Inconclusive ||
               (node.link == FabricStatus::Slow && node.peersMeasured < kConfirmPeers);
  }
  for (size_t li = 0; li < j.links.size(); ++li) {
    const FabricLinkVerdict& l = j.links[li];
    if (l.status != FabricStatus::Slow || !l.blame.empty() || j.withinSpread[li]) continue;
    // Undecided: an end with too few other peers, or not fine with them.
    for (int end : {l.a, l.b}) {
      if (j.nodes[end].peersMeasured < kMaxSuspectPeers) wants[end] = true;
    }
  }

  RoundBuilder round(n, measured, options.seed ^ (0x9E3779B97F4A7C15ULL * (measured.size() + 1)));
  for (int i = 0; i < n; ++i) {
    if (!wants[i] || round.busy(i)) continue;
    // A peer in another group first: one in its own would share its uplink.
    int peer = round.pick(i, good, [&](int c) { return j.group[c] != j.group[i]; });
    if (peer < 0) peer = round.pick(i, good, [](int) { return true; });
    if (peer >= 0) round.add(i, peer);
  }
  for (const FabricGroupLink& g : j.groupLinks) {
    if (g.status == FabricStatus::Slow || g.pairs >= kGroupPairs) continue;
    std::vector<int> left, right;
    for (int i : groups[g.groupA]) {
      if (std::binary_search(good.begin(), good.end(), i)) left.push_back(i);
    }
    for (int i : groups[g.groupB]) {
      if (std::binary_search(good.begin(), good.end(), i)) right.push_back(i);
    }
    for (int k = 0; k < kGroupPairsPerRound; ++k) {
      bool added = false;
      for (int a : left) {
        if (round.busy(a)) continue;
        const int b = round.pick(a, right, [](int) { return true; });
        if (b >= 0) {
          round.add(a, b);
          added = true;
          break;
        }
      }
      if (!added) break;
    }
  }
  return round.take(static_cast<size_t>(budget));
}

}  // namespace distbench::report::fabric_detail
