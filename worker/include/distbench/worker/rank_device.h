// Where a rank computes, decided after everyone has joined and before the
// groups are formed: trainers of a spec.runtime.device cuda run take the GPU
// their placement gives them (gpu/gpu_placement.h) and publish its facts for
// the master (common/device_facts.h); every other rank, and every rank of a
// CPU run, computes on the CPU. Deciding after the join means a trainer
// that cannot have its GPU ends the whole run at once, through the verdict,
// rather than leaving the others to wait out the rendezvous timeout.
#pragma once

#include <string>

#include "distbench/api/benchmark_spec.h"
#include "distbench/worker/gpu/compute_device.h"
#include "distbench/worker/gpu/gpu_placement.h"

namespace c10d {
class Store;
}

namespace distbench::worker {

struct WorkerIdentity;

// Why this worker cannot run a trainer of `runtime` at all, whatever the
// node has: "" when it can. The LibTorch build (no CUDA side, no NCCL
// process group) or the CUDA runtime (none linked). Every reason, joined.
std::string buildCannotRun(const api::RuntimeSpec& runtime);

// The device of trainer `id`: the CPU for device cpu; for cuda, the GPU
// placement chooses, made current, its facts published to `store`. Throws
// PlacementError with every reason it cannot (this build, this node, the
// number of ranks per GPU), each naming the field or variable.
ComputeDevice placeTrainer(const WorkerIdentity& id, const api::RuntimeSpec& runtime,
                           c10d::Store& store);

}  // namespace distbench::worker
