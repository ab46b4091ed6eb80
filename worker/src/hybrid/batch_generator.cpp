#include "distbench/worker/hybrid/batch_generator.h"

#include <ATen/ATen.h>

#include <vector>

namespace distbench::worker {

BatchGenerator::BatchGenerator(const api::HybridDDPRPCSpec& spec, int64_t seed, int trainerIndex,
                               int64_t numClasses)
    : spec_(spec), numClasses_(numClasses) {
  std::seed_seq seq{static_cast<uint64_t>(seed), static_cast<uint64_t>(trainerIndex),
                    uint64_t{0x64697374}};
  rng_.seed(seq);
}

Batch BatchGenerator::next() {
  std::uniform_int_distribution<int64_t> count(spec_.minBagIndices, spec_.maxBagIndices);
  std::uniform_int_distribution<int64_t> row(0, spec_.numEmbeddings - 1);
  std::uniform_int_distribution<int64_t> step(1, spec_.maxOffsetStep);
  std::uniform_int_distribution<int64_t> label(0, numClasses_ - 1);

  const int64_t n = count(rng_);
  std::vector<int64_t> indices(n), offsets, targets;
  for (auto& i : indices) i = row(rng_);
  for (int64_t start = 0; start < n; start += step(rng_)) offsets.push_back(start);
  targets.resize(offsets.size());
  for (auto& t : targets) t = label(rng_);

  auto asTensor = [](const std::vector<int64_t>& v) { return at::tensor(v, at::kLong); };
  return Batch{asTensor(indices), asTensor(offsets), asTensor(targets)};
}

}  // namespace distbench::worker
