#include "distbench/worker/hybrid/embedding_shard.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace distbench::worker {
namespace {

class ShardMatchesTorch : public ::testing::TestWithParam<api::EmbeddingMode> {};

// The shard's explicit lookup / gradient / SGD step against stock
// torch::nn::EmbeddingBag with autograd.
TEST_P(ShardMatchesTorch, LookupGradientAndStep) {
  ShardConfig config;
  config.numEmbeddings = 20;
  config.embeddingDim = 4;
  config.mode = GetParam();
  config.seed = 11;
  config.shardIndex = 1;
  config.learningRate = 0.1;
  EmbeddingShard shard(config);

  const torch::nn::EmbeddingBagMode mode =
      config.mode == api::EmbeddingMode::Sum    ? torch::nn::EmbeddingBagMode(torch::kSum)
      : config.mode == api::EmbeddingMode::Mean ? torch::nn::EmbeddingBagMode(torch::kMean)
                                                : torch::nn::EmbeddingBagMode(torch::kMax);
  auto reference = torch::nn::EmbeddingBag::from_pretrained(
      EmbeddingShard::initialTable(config),
      torch::nn::EmbeddingBagFromPretrainedOptions().freeze(false).mode(mode));

  // Repeated rows inside and across bags.
  torch::Tensor indices = torch::tensor({3, 3, 7, 19, 0, 7, 7, 12}, torch::kLong);
  torch::Tensor offsets = torch::tensor({0, 2, 5}, torch::kLong);
  torch::Tensor gradOut = torch::randn({3, 4});

  LookupContext context;
  torch::Tensor pooled = shard.lookup(indices, offsets, context);
  torch::Tensor expected = reference->forward(indices, offsets);
  EXPECT_TRUE(torch::allclose(pooled, expected, 1e-6, 1e-6));

  shard.accumulateGradient(context, gradOut);
  EXPECT_GT(shard.applyStep(context), 0);
  expected.backward(gradOut);
  {
    torch::NoGradGuard noGrad;
    reference->weight.add_(reference->weight.grad(), -config.learningRate);
  }
  EXPECT_TRUE(torch::allclose(shard.table(), reference->weight, 1e-6, 1e-6));
  EXPECT_FALSE(context.active);
}

INSTANTIATE_TEST_SUITE_P(Modes, ShardMatchesTorch,
                         ::testing::Values(api::EmbeddingMode::Sum, api::EmbeddingMode::Mean,
                                           api::EmbeddingMode::Max),
                         [](const auto& info) { return std::string(api::toString(info.param)); });

TEST(EmbeddingShard, GradientWithoutLookupIsAnError) {
  ShardConfig config;
  config.numEmbeddings = 5;
  config.embeddingDim = 2;
  EmbeddingShard shard(config);
  LookupContext context;
  EXPECT_THROW(shard.accumulateGradient(context, torch::ones({1, 2})), std::runtime_error);
}

TEST(EmbeddingShard, InitialTablesAreReproducibleAndDistinctPerShard) {
  ShardConfig a;
  a.numEmbeddings = 6;
  a.embeddingDim = 3;
  a.seed = 5;
  ShardConfig b = a;
  b.shardIndex = 1;
  EXPECT_TRUE(torch::equal(EmbeddingShard::initialTable(a), EmbeddingShard::initialTable(a)));
  EXPECT_FALSE(torch::equal(EmbeddingShard::initialTable(a), EmbeddingShard::initialTable(b)));
}

}  // namespace
}  // namespace distbench::worker
