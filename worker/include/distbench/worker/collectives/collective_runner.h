// Runs a Collectives plan on one rank of a group (Gloo on the CPU, Gloo on
// CUDA tensors, NCCL), nccl-tests style: every case's buffers allocated
// once on the group's device, warm-up iterations untimed, each iteration
// started together after a barrier and timed where it runs (CUDA events on
// a GPU: from before the op is queued to its completion on the stream), and
// the first iteration of every case checked, on the device, against values
// computed independently of the backend.
#pragma once

#include <ATen/core/Tensor.h>

#include <functional>
#include <string>
#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "distbench/worker/collectives/collective_plan.h"
#include "distbench/worker/collectives/collectives_metrics.h"
#include "distbench/worker/comm/process_group.h"

namespace distbench::worker {

// How `op` runs on `backend` with tensors on `device`, for the report:
// "nccl reduce_scatter", "gloo allreduce", "gloo allreduce on CUDA tensors
// (staged through host memory)", or what stands in where the backend lacks
// the op.
std::string implementationOf(api::CollectiveOp op, api::Backend backend, api::Device device);

// Every rank calls this with the same plan and spec; roots are rank 0, and
// reductions sum. Returns, per case of `plan`, this rank's seconds per
// measured iteration (spec.iterations of them; warm-up excluded). Each
// measured iteration is also observed into `metrics` when not null. Throws
// std::runtime_error when a result is wrong on any rank (every rank learns
// which) or the GPU does not finish an op within the group's timeout,
// PeerError when a peer fails or times out, and std::invalid_argument for a
// dtype Gloo cannot run (bfloat16).
// `betweenCases`, if set, runs before each case: where a long sweep asks
// whether the run was called off.
std::vector<std::vector<double>> runCollectives(const std::vector<CollectiveCase>& plan,
                                                const api::CollectivesSpec& spec,
                                                ProcessGroup& group,
                                                CollectivesRankMetrics* metrics,
                                                const std::function<void()>& betweenCases = {});

// The values rank `rank` sends in case `c`, on the CPU: (rank + 1) + (i % 7)
// at index i of its input buffer. Small integers keep every sum exact in every dtype;
// in float16 up to 57 ranks, where the largest sum, n(n+1)/2 + 6n, is still
// at most 2048.
at::Tensor collectiveInput(const CollectiveCase& c, int rank, int64_t elements);

// What `rank` of `ranks` must hold after one run of `c` on inputs from
// collectiveInput, as float64; undefined where the op leaves this rank no
// result (reduce and gather off the root).
at::Tensor expectedCollectiveOutput(const CollectiveCase& c, int rank, int ranks);

// Throws std::runtime_error naming the op, dtype, size, rank, first wrong
// index and the expected and actual values when `output` (this rank's result
// buffer, on any device; compared there) differs from
// expectedCollectiveOutput in size or any element.
void checkCollectiveOutput(const CollectiveCase& c, int rank, int ranks, const at::Tensor& output);

}  // namespace distbench::worker
