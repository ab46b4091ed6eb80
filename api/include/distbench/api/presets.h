// Built-in benchmarks: `distbench run --preset NAME`.
#pragma once

#include <string>
#include <vector>

#include "distbench/api/benchmark_spec.h"

namespace distbench::api {

// "default": the seed benchmark, 8 trainers / 8 parameter servers.
// "tutorial": the DDP+RPC tutorial, 2 trainers, 1 PS, EmbeddingBag 100x16,
// Linear 16->8. "ddp": the seed's DDP sweep (4 ImageNet models, 8 ranks);
// "ddp-cpu": a ResNet-18 sweep small enough for a CPU; "collectives": every
// collective on 2 ranks; "fabric": six nodes' probes, pairs and allreduce
// (examples/fabric.yaml). Throws std::invalid_argument naming the known presets.
DistBenchmark preset(const std::string& name);
std::vector<std::string> presetNames();

}  // namespace distbench::api
