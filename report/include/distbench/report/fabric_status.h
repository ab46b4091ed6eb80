// The Fabric verdict's vocabulary for one node or one link: its status, an
// estimate with its interval, and a node's and a link's verdict. Apart from
// fabric_verdict.h so that the judging of links (src/fabric_judge.h), which
// the verdict and the planner both call, includes these and not the
// verdict that includes it.
#pragma once

#include <string>

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

}  // namespace distbench::report
