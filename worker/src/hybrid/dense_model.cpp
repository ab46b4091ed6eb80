#include "distbench/worker/hybrid/dense_model.h"

#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/linear.h>
#include <torch/utils.h>

namespace distbench::worker {

torch::nn::Sequential buildDenseModel(int64_t inputWidth,
                                      const std::vector<api::DenseLayer>& layers, int64_t seed) {
  torch::manual_seed(static_cast<uint64_t>(seed));
  torch::nn::Sequential model;
  int64_t width = inputWidth;
  for (const auto& layer : layers) {
    if (layer.type == api::DenseLayer::Type::ReLU) {
      model->push_back(torch::nn::ReLU());
    } else {
      model->push_back(torch::nn::Linear(width, layer.outFeatures));
      width = layer.outFeatures;
    }
  }
  return model;
}

}  // namespace distbench::worker
