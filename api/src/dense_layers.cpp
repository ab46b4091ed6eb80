#include "distbench/api/dense_layers.h"

#include <charconv>
#include <stdexcept>

namespace distbench::api {

std::optional<DenseLayer> parseDenseLayer(const std::string& token) {
  if (token == "ReLU") return DenseLayer{DenseLayer::Type::ReLU};
  // from_chars takes no '+', no spaces and (checked below) nothing after the number.
  int64_t width = 0;
  const char* end = token.data() + token.size();
  auto [ptr, ec] = std::from_chars(token.data(), end, width);
  if (ec != std::errc() || ptr != end || width <= 0) {
    return std::nullopt;
  }
  return DenseLayer{DenseLayer::Type::Linear, width};
}

std::vector<DenseLayer> parseDenseLayers(const std::vector<std::string>& tokens) {
  std::vector<DenseLayer> layers;
  layers.reserve(tokens.size());
  for (const std::string& token : tokens) {
    std::optional<DenseLayer> layer = parseDenseLayer(token);
    if (!layer) {
      throw std::invalid_argument("dense layer '" + token +
                                  "' is neither a positive integer nor ReLU");
    }
    layers.push_back(*layer);
  }
  return layers;
}

int64_t denseOutputWidth(const std::vector<DenseLayer>& layers) {
  for (auto it = layers.rbegin(); it != layers.rend(); ++it) {
    if (it->type == DenseLayer::Type::Linear) return it->outFeatures;
  }
  throw std::invalid_argument("dense stack has no Linear layer");
}

}  // namespace distbench::api
