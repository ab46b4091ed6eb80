// Where a Fabric run's ranks go in the cluster: each trainer is one "node"
// of the fabric being measured, so it must run on a node of its own (a
// required pod anti-affinity on kubernetes.io/hostname between the run's
// trainers, unless spec.benchmark.fabric.onePerNode is false, as on a
// one-node test cluster), on the node spec.benchmark.fabric.nodes names for
// it where the list is given (a required node affinity, so the scheduler
// still checks resources and taints, which spec.nodeName would bypass),
// and it learns its node's name from the downward API, so that the name
// travels into the report and the verdict. Other kinds' pods and the
// master are left as they are.
#pragma once

#include <cpprest/json.h>

#include <string>

#include "distbench/api/benchmark_spec.h"
#include "distbench/api/renderer.h"

namespace distbench::op {

inline constexpr const char* kHostnameTopologyKey = "kubernetes.io/hostname";

// Adds to the pod's `spec` and its worker container's `env` (an array)
// what `rank` of `b` needs; `runUid` is the run's label value, so that the
// anti-affinity sees only this run's trainers.
void applyFabricPlacement(const api::DistBenchmark& b, const api::RankProcess& rank,
                          const std::string& runUid, web::json::value& spec, web::json::value& env);

}  // namespace distbench::op
