// Where each rank sits in the world: global rank 0 is the master, 1..P the
// parameter servers, P+1..P+T the trainers, and the label (master, ps0..,
// trainer0..) logs and errors call each by. A header of its own, below the
// renderer, because spec.local's rank names (local_spec.h), the renderer and
// the worker all use it; in the renderer, validation would include the
// renderer that includes validation.
#pragma once

#include <string>

#include "distbench/api/benchmark_spec.h"

namespace distbench::api {

int masterRank();
int parameterServerRank(int psIndex);
int trainerRank(const TopologySpec& topology, int trainerIndex);
std::string rankLabel(const TopologySpec& topology, int globalRank);

}  // namespace distbench::api
