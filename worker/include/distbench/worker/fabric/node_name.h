// The Kubernetes node a Fabric rank runs on, so that a slow node is named
// as the node an operator acts on, not only as a rank. The operator gives
// it to each pod from the downward API (spec.nodeName) as
// DISTBENCH_NODE_NAME; outside a cluster it is "", and the rank's label
// names the "node" (each rank its own network namespace under --links).
#pragma once

#include <string>

namespace distbench::worker {

// DISTBENCH_NODE_NAME, or "" when unset.
std::string nodeNameFromEnvironment();

}  // namespace distbench::worker
