// The dense part every trainer replicates: Linear layers (and ReLUs) from
// spec.benchmark.hybridDDPRPC.denseLayers, after the P*dim concatenated lookups.
#pragma once

#include <torch/nn/modules/container/sequential.h>

#include <cstdint>
#include <vector>

#include "distbench/api/dense_layers.h"

namespace distbench::worker {

// Initialised from `seed` alone, so a reference model built with the same
// arguments starts from the same weights.
torch::nn::Sequential buildDenseModel(int64_t inputWidth,
                                      const std::vector<api::DenseLayer>& layers, int64_t seed);

}  // namespace distbench::worker
