// The dense stack notation of spec.benchmark.hybridDDPRPC.denseLayers:
// ["256", "128", "ReLU", "64", "32", "8"] means Linear(in,256), Linear(256,128),
// ReLU, Linear(128,64), Linear(64,32), Linear(32,8).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace distbench::api {

struct DenseLayer {
  enum class Type { Linear, ReLU };
  Type type;
  int64_t outFeatures = 0;  // Linear only
};

// nullopt when `token` is neither a positive integer nor "ReLU".
std::optional<DenseLayer> parseDenseLayer(const std::string& token);
// Throws std::invalid_argument on a bad token; callers validate first.
std::vector<DenseLayer> parseDenseLayers(const std::vector<std::string>& tokens);
// Width of the last Linear layer: the number of classes. Throws
// std::invalid_argument when there is no Linear layer.
int64_t denseOutputWidth(const std::vector<DenseLayer>& layers);

}  // namespace distbench::api
