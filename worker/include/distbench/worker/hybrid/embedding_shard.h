// One EmbeddingBag shard as a parameter server holds it, with the explicit
// forward/backward/SGD a distributed-autograd context would run: a lookup
// remembers what backward needs; a pushed gradient becomes a sparse gradient
// of the table; a step applies SGD with it and forgets the context.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

#include "distbench/api/benchmark_spec.h"

namespace distbench::worker {

struct ShardConfig {
  int64_t numEmbeddings = 0;
  int64_t embeddingDim = 0;
  api::EmbeddingMode mode = api::EmbeddingMode::Sum;
  int64_t seed = 0;
  int shardIndex = 0;
  double learningRate = 0.05;
};

// What one trainer's in-flight batch left on this shard.
struct LookupContext {
  at::Tensor indices, offsets, offset2bag, bagSize, maxIndices;
  at::Tensor gradient;  // sparse, summed over this batch's pushes
  bool active = false;
};

class EmbeddingShard {
 public:
  explicit EmbeddingShard(const ShardConfig& config);

  // [bags, dim] pooled embeddings; fills `context` for the backward pass.
  at::Tensor lookup(const at::Tensor& indices, const at::Tensor& offsets, LookupContext& context);
  // Adds d(loss)/d(table) for a gradient of the pooled output.
  void accumulateGradient(LookupContext& context, const at::Tensor& gradOutput);
  // table -= lr * gradient; clears the context. Returns rows with a gradient.
  int64_t applyStep(LookupContext& context);

  const at::Tensor& table() const { return table_; }
  const ShardConfig& config() const { return config_; }

  // The initial table of shard `shardIndex` for `seed`: N(0, 1) like
  // torch.nn.EmbeddingBag's default init, from a generator of its own.
  static at::Tensor initialTable(const ShardConfig& config);

 private:
  ShardConfig config_;
  at::Tensor table_;
};

int64_t embeddingModeCode(api::EmbeddingMode mode);  // ATen's 0 sum, 1 mean, 2 max

}  // namespace distbench::worker
