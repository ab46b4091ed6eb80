// The hybrid benchmark's training, in one process, with stock LibTorch
// modules and autograd (torch::nn::EmbeddingBag, the dense stack, SGD): what
// distributed training must reproduce. Every trainer's batch at a step is
// computed against the same state; dense gradients are averaged (DDP) and
// each trainer's embedding gradient is applied to the shared tables (one
// DistributedOptimizer step per trainer), the PS's Sync mode.
#pragma once

#include <ATen/core/Tensor.h>

#include <vector>

#include "distbench/api/benchmark_spec.h"

namespace distbench::worker::testing {

struct ReferenceState {
  std::vector<at::Tensor> tables;  // one per shard
  std::vector<at::Tensor> dense;   // dense parameters, in module order
};

ReferenceState trainReference(const api::DistBenchmark& benchmark);

}  // namespace distbench::worker::testing
