// The Fabric verdict's judging of links, nodes and pairs of groups, which
// the planner calls too (a suspect is what the verdict would call slow or
// cannot yet tell), without the compute probe, the allreduce and the
// bootstrap: the planner judges again before every round, at 1024 nodes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "distbench/report/fabric.h"
#include "distbench/report/fabric_verdict.h"

namespace distbench::report::fabric_detail {

// Peers a node needs before "most of its links are slow" names it.
inline constexpr int kMinPeersForNode = 3;
// Cross pairs of two groups before "most are slow" names the link between them.
inline constexpr int kMinPairsForGroupLink = 3;

// The median of `samples` and a distribution-free confidence interval for
// it: the order statistics x(k) and x(n+1-k) with the largest k whose
// binomial coverage is at least `confidence` (k = 1, the whole range, when
// no k reaches it). No resampling, so it costs a sort: the planner judges
// every link before every round. Empty samples: all zero.
FabricEstimate medianInterval(std::vector<double> samples, double confidence);

// A link between two groups (FabricNode::group) judged as one: a bad link
// between two leaves slows every pair that crosses it.
struct FabricGroupLink {
  int groupA = 0;  // into nodeGroups(m.nodes)
  int groupB = 0;
  FabricEstimate bandwidth;  // over its pairs that no slow node explains
  int pairs = 0;             // such pairs measured
  int slowPairs = 0;
  FabricStatus status = FabricStatus::Ok;  // Slow: named; Inconclusive: not enough pairs
};

struct FabricJudgement {
  int64_t bytes = 0;  // the largest message size: where bandwidth is judged
  double line = 0;    // bytes/s
  std::string lineSource = "group";
  double slowBelow = 0;                     // (1 - threshold) * line
  std::vector<FabricLinkVerdict> links;     // every measured pair at `bytes`
  std::vector<int> linkRound;               // each link's round
  std::vector<FabricNodeVerdict> nodes;     // bandwidth, link, peersMeasured, slowPeers
  std::vector<int> inconclusivePeers;       // per node: peers whose link is inconclusive
  std::vector<int> group;                   // per node: its index in nodeGroups
  std::vector<FabricGroupLink> groupLinks;  // pairs of groups with a slow pair
};

struct FabricJudgeOptions {
  double thresholdPercent = 25;
  double confidence = 0.95;
  const FabricMeasurements* baseline = nullptr;
  // Each pair's figure divided by its round's median (times the run's), in
  // rounds that cover most nodes: a round every pair of which was slowed
  // (another job on the machine) then slows none.
  bool roundNormalise = true;
};

FabricJudgement judgeLinks(const FabricMeasurements& m, const FabricJudgeOptions& options);

}  // namespace distbench::report::fabric_detail
