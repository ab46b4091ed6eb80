#include "hybrid/reference_training.h"

#include <torch/torch.h>

#include "distbench/api/dense_layers.h"
#include "distbench/worker/hybrid/batch_generator.h"
#include "distbench/worker/hybrid/dense_model.h"
#include "distbench/worker/hybrid/embedding_shard.h"

namespace distbench::worker::testing {

ReferenceState trainReference(const api::DistBenchmark& benchmark) {
  const auto& spec = benchmark.spec.benchmark.hybridDDPRPC;
  const int P = benchmark.spec.topology.parameterServers;
  const int T = benchmark.spec.topology.trainers;
  const int64_t seed = benchmark.spec.benchmark.seed;
  const double lr = spec.learningRate;
  const auto layers = api::parseDenseLayers(spec.denseLayers);
  const torch::nn::EmbeddingBagMode mode =
      spec.embeddingMode == api::EmbeddingMode::Sum    ? torch::nn::EmbeddingBagMode(torch::kSum)
      : spec.embeddingMode == api::EmbeddingMode::Mean ? torch::nn::EmbeddingBagMode(torch::kMean)
                                                       : torch::nn::EmbeddingBagMode(torch::kMax);

  std::vector<torch::nn::EmbeddingBag> shards;
  for (int p = 0; p < P; ++p) {
    ShardConfig config;
    config.numEmbeddings = spec.numEmbeddings;
    config.embeddingDim = spec.embeddingDim;
    config.seed = seed;
    config.shardIndex = p;
    shards.push_back(torch::nn::EmbeddingBag::from_pretrained(
        EmbeddingShard::initialTable(config),
        torch::nn::EmbeddingBagFromPretrainedOptions().freeze(false).mode(mode)));
  }
  torch::nn::Sequential dense = buildDenseModel(P * spec.embeddingDim, layers, seed);
  std::vector<BatchGenerator> generators;
  for (int t = 0; t < T; ++t) {
    generators.emplace_back(spec, seed, t, api::denseOutputWidth(layers));
  }

  const int steps = (spec.warmupEpochs + spec.epochs) * spec.batchesPerEpoch;
  for (int step = 0; step < steps; ++step) {
    std::vector<torch::Tensor> denseSum, tableSum;
    for (int t = 0; t < T; ++t) {
      Batch batch = generators[t].next();
      std::vector<torch::Tensor> lookups;
      for (auto& shard : shards) lookups.push_back(shard->forward(batch.indices, batch.offsets));
      torch::Tensor loss = torch::nn::functional::cross_entropy(
          dense->forward(torch::cat(lookups, 1)), batch.targets);
      std::vector<torch::Tensor> inputs = dense->parameters();
      for (auto& shard : shards) inputs.push_back(shard->weight);
      std::vector<torch::Tensor> grads = torch::autograd::grad({loss}, inputs);
      const size_t nDense = dense->parameters().size();
      for (size_t i = 0; i < grads.size(); ++i) {
        auto& sum = i < nDense ? denseSum : tableSum;
        const size_t k = i < nDense ? i : i - nDense;
        if (sum.size() <= k)
          sum.push_back(grads[i].clone());
        else
          sum[k] += grads[i];
      }
    }
    torch::NoGradGuard noGrad;
    auto params = dense->parameters();
    for (size_t k = 0; k < params.size(); ++k) params[k].add_(denseSum[k] / T, -lr);
    for (int p = 0; p < P; ++p) shards[p]->weight.add_(tableSum[p], -lr);
  }

  ReferenceState state;
  for (auto& shard : shards) state.tables.push_back(shard->weight.detach().clone());
  for (auto& p : dense->parameters()) state.dense.push_back(p.detach().clone());
  return state;
}

}  // namespace distbench::worker::testing
