// The seed's get_next_batch: 20..50 indices, offsets stepping 1..10, targets
// in 0..classes-1. Seeded per trainer so any run, and any reference that
// replays it, sees the same batches.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <random>

#include "distbench/api/benchmark_spec.h"

namespace distbench::worker {

struct Batch {
  at::Tensor indices;  // int64 [n]
  at::Tensor offsets;  // int64 [bags], offsets[0] == 0
  at::Tensor targets;  // int64 [bags]
  int64_t examples() const { return offsets.size(0); }
};

class BatchGenerator {
 public:
  BatchGenerator(const api::HybridDDPRPCSpec& spec, int64_t seed, int trainerIndex,
                 int64_t numClasses);
  Batch next();

 private:
  api::HybridDDPRPCSpec spec_;
  int64_t numClasses_;
  std::mt19937_64 rng_;
};

}  // namespace distbench::worker
