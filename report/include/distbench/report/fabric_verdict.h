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
#include "distbench/report/fabric_status.h"

namespace distbench::report {

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
  // How far healthy links stray from the line: a robust standard deviation
  // of log bandwidth (the root mean square of the log deviations, the
  // largest tenth left out). A link is named alone only where its interval
  // is below the threshold and its estimate spreadSigmas of these below the
  // line: a link's interval holds its own samples' noise, not what makes
  // one healthy link lastingly slower than another.
  double lineSpread = 0;
  // The same for the nodes' probes (log FLOP/s around their median): a
  // compute is named only past spreadSigmas of it.
  double computeSpread = 0;
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
  // Each pair's figure divided by its round's median (times the run's),
  // the median over the round's pairs between nodes a first judging found
  // fine, where there are three such pairs or more: pairs measured at the
  // same time share the machine, and a round slowed as a whole (another
  // job) then names no link. docs/performance.md measures both ways.
  bool roundNormalise = true;
  // How many of the healthy links' spreads (FabricVerdict::lineSpread) below
  // the line a link named alone must lie; 0: the interval alone decides.
  double spreadSigmas = 3;
};

FabricVerdict judgeFabric(const FabricMeasurements& m, const FabricVerdictOptions& options = {});

// As JSON text (docs/report-schema.md, results.fabricVerdict), and as the
// master's table: the nodes, the worst links, the suspects.
std::string fabricVerdictToJson(const FabricVerdict& v, const FabricMeasurements& m);
std::string formatFabricVerdict(const FabricVerdict& v, const FabricMeasurements& m);

}  // namespace distbench::report
