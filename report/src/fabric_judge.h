// The Fabric verdict's judging of links, nodes and pairs of groups, which
// the planner calls too (a suspect is what the verdict would call slow or
// cannot yet tell), without the compute probe, the allreduce and the
// bootstrap: the planner judges again before every round, at 1024 nodes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "distbench/report/fabric.h"
#include "distbench/report/fabric_status.h"

namespace distbench::report::fabric_detail {

// Peers a node needs before "most of its links are slow" names it.
inline constexpr int kMinPeersForNode = 3;
// Cross pairs of two groups before "most are slow" names the link between them.
inline constexpr int kMinPairsForGroupLink = 3;
// The healthy links' spread (FabricJudgement::spread) is learnt from this
// many links at least.
inline constexpr size_t kMinLinksForSpread = 8;
// Links of fine nodes in a round before its median is trusted.
inline constexpr size_t kMinLinksForRound = 3;

// The median of `samples` and a distribution-free confidence interval for
// it: the order statistics x(k) and x(n+1-k) with the largest k whose
// binomial coverage is at least `confidence` (k = 1, the whole range, when
// no k reaches it). No resampling, so it costs a sort: the planner judges
// every link before every round. Empty samples: all zero.
FabricEstimate medianInterval(std::vector<double> samples, double confidence);

// Which quantile of a link's seconds per message its figure is: the fast
// quartile. Delays only ever add time (another process on the core, the
// scheduler, a retransmit), so the faster samples measure what the link
// can carry and the slower ones what else was going on; a link capped by a
// bad cable, port or shaper is slow in every sample, its fast quartile too.
// Measured on 6 and 8 ranks sharing 2 cores unshaped, where one link's
// samples ranged 0.1 to 5 GB/s: the median named a healthy link or node in
// 3 of 40 runs, the fast quartile in 2, each a link slow in most of its
// samples (docs/performance.md). What it
// gives up: a link slow only now and then (a flapping port) shows its
// good moments; it is named only when slow in most of its samples.
inline constexpr double kLinkQuantile = 0.25;

// The `q` quantile of `samples` (between order statistics, as
// percentileLinear) and a distribution-free interval for it: the order
// statistics x(l) and x(u) whose binomial coverage, B ~ Binomial(n, q)
// falling in [l, u), is at least `confidence`, as even on both tails as the
// sample allows (the whole range when nothing narrower reaches it).
// Empty samples: all zero.
FabricEstimate quantileInterval(std::vector<double> samples, double q, double confidence);

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
  double slowBelow = 0;                  // (1 - threshold) * line
  double spread = 0;                     // of healthy links around the line, in log units
  double spreadBelow = 0;                // line * exp(-spreadSigmas * spread)
  std::vector<FabricLinkVerdict> links;  // every measured pair at `bytes`
  std::vector<int> linkRound;            // each link's round
  // Per link: slow, both ends fine elsewhere, but within spreadSigmas of
  // the healthy links' spread: not named, and decided (no more peers).
  std::vector<bool> withinSpread;
  std::vector<FabricNodeVerdict> nodes;     // bandwidth, link, peersMeasured, slowPeers
  std::vector<int> inconclusivePeers;       // per node: peers whose link is inconclusive
  std::vector<int> group;                   // per node: its index in nodeGroups
  std::vector<FabricGroupLink> groupLinks;  // pairs of groups with a slow pair
};

struct FabricJudgeOptions {
  double thresholdPercent = 25;
  double confidence = 0.95;
  const FabricMeasurements* baseline = nullptr;
  // Each pair's figure divided by its round's median (times the run's): a
  // round every pair of which was slowed (another job on the machine) then
  // slows none.
  bool roundNormalise = true;
  // A link named alone lies this many spreads below the line.
  double spreadSigmas = 3;
};

// A standard deviation of log deviations from their absolute values (the
// root mean square, the largest tenth left out, scaled to a normal's); 0
// for none.
double trimmedSpread(std::vector<double> deviations);
// How many spreads past the line one of `tests` healthy figures must lie
// to be named: `sigmas`, or more where there are so many figures that one
// past it is likely (the z whose tail is 0.025 / tests: 4.6 at 17000
// links). 0 stays 0 (no spread rule).
double spreadMultiplier(double sigmas, size_t tests);

// Ranks on one Kubernetes node (FabricNode::node, not "") talk through its
// memory, not its network: where a run also measures links between
// nodes (the preflight gate's ranksPerNode: Pods, a Fabric run with
// onePerNode false on several nodes), only those are judged, so that the
// line is a line of one kind of link; a run on one node judges the links
// it has. A local run (no node names) judges every link.
bool sameNode(const FabricMeasurements& m, int a, int b);
bool measuresAcrossNodes(const FabricMeasurements& m);
bool judged(const FabricMeasurements& m, const FabricPairSamples& p, bool acrossNodes);

FabricJudgement judgeLinks(const FabricMeasurements& m, const FabricJudgeOptions& options);

}  // namespace distbench::report::fabric_detail
