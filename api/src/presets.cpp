#include "distbench/api/presets.h"

#include <stdexcept>

namespace distbench::api {
namespace {

DistBenchmark defaultPreset() {
  DistBenchmark b;
  b.metadata.name = "default";
  return b;
}

// The shape of the DDP+RPC tutorial (seed 001): one EmbeddingBag(100, 16) on
// one parameter server, Linear(16, 8) replicated on two trainers.
DistBenchmark tutorialPreset() {
  DistBenchmark b;
  b.metadata.name = "tutorial";
  b.spec.topology.trainers = 2;
  b.spec.topology.parameterServers = 1;
  b.spec.benchmark.hybridDDPRPC.numEmbeddings = 100;
  b.spec.benchmark.hybridDDPRPC.embeddingDim = 16;
  b.spec.benchmark.hybridDDPRPC.denseLayers = {"8"};
  return b;
}

}  // namespace

std::vector<std::string> presetNames() { return {"default", "tutorial"}; }

DistBenchmark preset(const std::string& name) {
  if (name == "default") return defaultPreset();
  if (name == "tutorial") return tutorialPreset();
  std::string known;
  for (const std::string& n : presetNames()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown preset '" + name + "'; known presets: " + known);
}

}  // namespace distbench::api
