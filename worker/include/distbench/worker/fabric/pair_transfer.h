// Point-to-point transfers between the two nodes of a pair, timed on the
// receiver: each sample starts when the receiver sends a one-element token
// ("ready") and ends when the whole message has arrived, so the sender
// never starts early and both ends agree on which transfer a sample is.
// A sample is therefore the token's latency plus the message's transfer:
// at the smallest size about one round trip, at the largest the bandwidth.
#pragma once

#include <cstdint>
#include <vector>

#include "distbench/worker/comm/process_group.h"

namespace distbench::worker {

struct PairTransferPlan {
  std::vector<int64_t> messageBytes;  // each size, in this order
  int warmupSamples = 0;              // per size and direction, not returned
  int samplesPerPair = 1;             // per size and direction
};

// Both ranks of the pair (`me` and `peer`, group ranks of `group`) call
// this at the same time. For each size, the lower group rank sends first
// (`peer` receives, then `me`). Returns, per size in plan order, the
// seconds of each sample this rank received (the peer's direction toward
// it). Every wait is bounded by the group's timeout and names the peer.
std::vector<std::vector<double>> measurePair(ProcessGroup& group, int peer,
                                             const PairTransferPlan& plan);

}  // namespace distbench::worker
