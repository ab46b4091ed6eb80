// A trainer's calls to the parameter servers. Each call goes to all P shards
// at once: every request is sent before any reply is awaited, so the P
// lookups are in flight together, as DESIGN.md asks.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "metrics.h"
#include "process_group.h"

namespace distbench::worker {

class ParameterServerClient {
 public:
  ParameterServerClient(ProcessGroup& global, int numParameterServers, int trainerIndex,
                        int64_t embeddingDim, WorkerMetrics& metrics);

  // One [bags, dim] tensor per shard.
  std::vector<at::Tensor> lookup(int64_t step, const at::Tensor& indices,
                                 const at::Tensor& offsets);
  // gradients[p]: d(loss)/d(lookup p), [bags, dim].
  void pushGradients(int64_t step, const std::vector<at::Tensor>& gradients);
  void step(int64_t step);

 private:
  ProcessGroup& global_;
  int numPs_;
  int trainerIndex_;
  int64_t dim_;
  WorkerMetrics& metrics_;
};

}  // namespace distbench::worker
