#include "distbench/worker/ddp/models/model_factory.h"

#include <functional>
#include <stdexcept>

#include "distbench/worker/ddp/models/resnet.h"
#include "distbench/worker/ddp/models/small_cnn.h"

namespace distbench::worker {
namespace {

struct Entry {
  const char* name;
  std::function<std::shared_ptr<ImageModel>(int64_t numClasses)> make;
};

// One table for both the factory and the list of names, so the two cannot drift apart.
const std::vector<Entry>& registry() {
  static const std::vector<Entry> entries = {
      {"resnet18", [](int64_t n) { return makeResNet(resnet18Config(n)); }},
      {"resnet50", [](int64_t n) { return makeResNet(resnet50Config(n)); }},
      {"resnet101", [](int64_t n) { return makeResNet(resnet101Config(n)); }},
      {"resnext50_32x4d", [](int64_t n) { return makeResNet(resnext50_32x4dConfig(n)); }},
      {"resnext101_32x8d", [](int64_t n) { return makeResNet(resnext101_32x8dConfig(n)); }},
      {"smallcnn", [](int64_t n) { return makeSmallCnn(n); }},
  };
  return entries;
}

}  // namespace

std::vector<std::string> imageModelNames() {
  std::vector<std::string> names;
  for (const auto& entry : registry()) names.emplace_back(entry.name);
  return names;
}

std::shared_ptr<ImageModel> makeImageModel(const std::string& name, int64_t numClasses) {
  if (numClasses < 1) {
    throw std::invalid_argument("image model " + name + ": numClasses must be at least 1, got " +
                                std::to_string(numClasses));
  }
  for (const auto& entry : registry()) {
    if (name == entry.name) return entry.make(numClasses);
  }
  std::string known;
  for (const auto& entry : registry()) known += std::string(known.empty() ? "" : ", ") + entry.name;
  throw std::invalid_argument("unknown image model '" + name + "'; known: " + known);
}

}  // namespace distbench::worker
