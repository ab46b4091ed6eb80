#include "distbench/worker/hybrid/embedding_shard.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <c10/core/GradMode.h>

#include <stdexcept>

namespace distbench::worker {

int64_t embeddingModeCode(api::EmbeddingMode mode) {
  switch (mode) {
    case api::EmbeddingMode::Sum:
      return 0;
    case api::EmbeddingMode::Mean:
      return 1;
    case api::EmbeddingMode::Max:
      return 2;
  }
  return 0;
}

at::Tensor EmbeddingShard::initialTable(const ShardConfig& config) {
  // Distinct, reproducible streams per shard; 0x9E37... spreads nearby seeds.
  uint64_t streamSeed = static_cast<uint64_t>(config.seed) * 0x9E3779B97F4A7C15ull +
                        static_cast<uint64_t>(config.shardIndex) + 1;
  at::Generator gen = at::detail::createCPUGenerator(streamSeed);
  return at::randn({config.numEmbeddings, config.embeddingDim}, gen, at::kFloat);
}

EmbeddingShard::EmbeddingShard(const ShardConfig& config)
    : config_(config), table_(initialTable(config)) {}

at::Tensor EmbeddingShard::lookup(const at::Tensor& indices, const at::Tensor& offsets,
                                  LookupContext& context) {
  c10::AutoGradMode noGrad(false);
  auto result = at::_embedding_bag(table_, indices, offsets, /*scale_grad_by_freq=*/false,
                                   embeddingModeCode(config_.mode), /*sparse=*/true);
  context.indices = indices;
  context.offsets = offsets;
  context.offset2bag = std::get<1>(result);
  context.bagSize = std::get<2>(result);
  context.maxIndices = std::get<3>(result);
  context.gradient = at::Tensor();
  context.active = true;
  return std::get<0>(result);
}

void EmbeddingShard::accumulateGradient(LookupContext& context, const at::Tensor& gradOutput) {
  if (!context.active) {
    throw std::runtime_error("gradient pushed for a batch this shard never looked up");
  }
  c10::AutoGradMode noGrad(false);
  // ATen has no sparse backward for max pooling (torch.nn.EmbeddingBag says
  // so too); there the gradient is a dense table.
  const bool sparse = config_.mode != api::EmbeddingMode::Max;
  at::Tensor grad = at::_embedding_bag_backward(
      gradOutput, context.indices, context.offsets, context.offset2bag, context.bagSize,
      context.maxIndices, config_.numEmbeddings, /*scale_grad_by_freq=*/false,
      embeddingModeCode(config_.mode), sparse, c10::nullopt);
  context.gradient = context.gradient.defined() ? context.gradient + grad : grad;
}

int64_t EmbeddingShard::applyStep(LookupContext& context) {
  c10::AutoGradMode noGrad(false);
  int64_t rows = 0;
  if (context.gradient.defined() && context.gradient.is_sparse()) {
    at::Tensor g = context.gradient.coalesce();
    rows = g._nnz();
    table_.index_add_(0, g._indices().select(0, 0), g._values(), -config_.learningRate);
  } else if (context.gradient.defined()) {
    rows = context.gradient.ne(0).any(1).sum().item<int64_t>();
    table_.add_(context.gradient, -config_.learningRate);
  }
  context = LookupContext{};
  return rows;
}

}  // namespace distbench::worker
