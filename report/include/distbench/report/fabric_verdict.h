// Where the fabric is slow, from FabricMeasurements (fabric.h): per node
// and per measured link an estimate with a confidence interval, and the
// suspects named with what, where, estimate and interval. "Inconclusive"
// where the interval straddles the line: the data cannot tell, and the
// verdict says so rather than guess. The line is relative to the group
// (a robust median of the others), or to a baseline's figures where one
// is given. The statistics are the bootstrap's (bootstrap.h), as the
// straggler rule and the regression verdict use.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "distbench/report/bootstrap.h"
#include "distbench/report/fabric.h"

namespace distbench::report {

enum class FabricStatus { Ok, Slow, Inconclusive };
const char* toString(FabricStatus);  // ok | slow | inconclusive

struct FabricEstimate {
  double value = 0;  // point estimate
  double low = 0;    // confidence interval
  double high = 0;
};

struct FabricNodeVerdict {
  int index = 0;  // into FabricMeasurements::nodes
  // The node's links: bytes/s over its measured peers (largest message size).
  FabricEstimate bandwidth;
  FabricStatus link = FabricStatus::Ok;
  // Its compute probe, FLOP/s.
  FabricEstimate compute;
  FabricStatus computeStatus = FabricStatus::Ok;
  int peersMeasured = 0;
  int slowPeers = 0;  // peers whose link with it is slow
};

struct FabricLinkVerdict {
  int a = 0;
  int b = 0;
  FabricEstimate bandwidth;  // bytes/s, both directions pooled, largest size
  FabricEstimate latency;    // seconds, smallest size, both directions
  FabricStatus status = FabricStatus::Ok;
  // Where the slowness belongs: "" (not slow, or slow with the cause
  // undecided: an end with too few other peers to tell), "node" (one of its
  // ends is a slow node, which explains it) or "link" (both ends fine
  // elsewhere, or the link between their groups is slow).
  std::string blame;
};

struct FabricSuspect {
  std::string what;   // "node" | "link" | "compute"
  // "trainer3 (node-a)" | "trainer1-trainer3" | "group rack3 - rack7" (a
  // link between two groups of nodes, FabricNode::group: `nodes` holds both
  // groups' nodes)
  std::string where;
  std::vector<int> nodes;  // the node indices it names
  FabricEstimate estimate;  // bytes/s, or FLOP/s for compute
  double line = 0;          // what it was compared with, same unit
  FabricStatus status = FabricStatus::Slow;  // Slow, or Inconclusive
  std::string evidence;  // one sentence a person can act on
};

struct FabricVerdict {
  double lineBandwidth = 0;  // bytes/s: the group's (or baseline's) link figure
  double lineCompute = 0;    // FLOP/s
  std::string lineSource = "group";  // "group" | "baseline"
  std::vector<FabricNodeVerdict> nodes;
  std::vector<FabricLinkVerdict> links;
  // Slow first, then inconclusive; empty when nothing is named.
  std::vector<FabricSuspect> suspects;
  int pairsMeasured = 0;
  int pairsTotal = 0;  // n (n - 1) / 2
  std::optional<FabricEstimate> allreduceBusBandwidth;  // bytes/s
  double thresholdPercent = 25;  // as judged
  int64_t bytes = 0;             // the message size bandwidth is judged at
};

struct FabricVerdictOptions {
  // The smallest slowdown named: below (100 - this) % of the line.
  double thresholdPercent = 25;
  BootstrapOptions bootstrap;
  // A baseline run's measurements: its figures become the line instead of
  // the group's median.
  const FabricMeasurements* baseline = nullptr;
  // Each pair's figure divided by its round's median (times the run's), in
  // rounds of three pairs or more that cover most nodes: pairs measured at
  // the same time share the machine, and a round slowed as a whole (another
  // job) then names no link. docs/performance.md measures both ways.
  bool roundNormalise = true;
};

FabricVerdict judgeFabric(const FabricMeasurements& m, const FabricVerdictOptions& options = {});

// As JSON text (docs/report-schema.md, results.fabricVerdict), and as the
// master's table: the nodes, the worst links, the suspects.
std::string fabricVerdictToJson(const FabricVerdict& v, const FabricMeasurements& m);
std::string formatFabricVerdict(const FabricVerdict& v, const FabricMeasurements& m);

}  // namespace distbench::report
