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

// A benchmark of a kind without parameter servers, on `trainers` ranks.
DistBenchmark withoutParameterServers(const std::string& name, BenchmarkKind kind, int trainers) {
  DistBenchmark b;
  b.metadata.name = name;
  b.spec.topology.trainers = trainers;
  b.spec.topology.parameterServers = 0;
  b.spec.benchmark.kind = kind;
  return b;
}

// The seed's DDP benchmark as it runs there: four ImageNet models, batch 32,
// 224x224, one machine of 8 ranks. Meant for GPU clusters.
DistBenchmark ddpPreset() { return withoutParameterServers("ddp", BenchmarkKind::DDP, 8); }

// A DDP sweep a laptop or CI box finishes in about a minute: ResNet-18 on
// 64x64 images, two ranks.
DistBenchmark ddpCpuPreset() {
  DistBenchmark b = withoutParameterServers("ddp-cpu", BenchmarkKind::DDP, 2);
  b.spec.benchmark.ddp.models = {"resnet18"};
  b.spec.benchmark.ddp.batchSize = 16;
  b.spec.benchmark.ddp.imageSize = 64;
  b.spec.benchmark.ddp.warmupIterations = 3;
  b.spec.benchmark.ddp.iterations = 10;
  return b;
}

// Every collective over two ranks, 1 KiB to 16 MiB.
DistBenchmark collectivesPreset() {
  DistBenchmark b = withoutParameterServers("collectives", BenchmarkKind::Collectives, 2);
  b.spec.benchmark.collectives.maxBytes = 16 << 20;
  return b;
}

// Six nodes, sized to finish in seconds on one machine: enough peers that
// the group's median is a fair line for each.
DistBenchmark fabricPreset() {
  DistBenchmark b = withoutParameterServers("fabric", BenchmarkKind::Fabric, 6);
  b.spec.benchmark.fabric.messageBytes = {4096, 1048576};
  b.spec.benchmark.fabric.samplesPerPair = 6;
  b.spec.benchmark.fabric.allreduceBytes = 1048576;
  return b;
}

}  // namespace

std::vector<std::string> presetNames() {
  return {"default", "tutorial", "ddp", "ddp-cpu", "collectives", "fabric"};
}

DistBenchmark preset(const std::string& name) {
  if (name == "default") return defaultPreset();
  if (name == "tutorial") return tutorialPreset();
  if (name == "ddp") return ddpPreset();
  if (name == "ddp-cpu") return ddpCpuPreset();
  if (name == "collectives") return collectivesPreset();
  if (name == "fabric") return fabricPreset();
  std::string known;
  for (const std::string& n : presetNames()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown preset '" + name + "'; known presets: " + known);
}

}  // namespace distbench::api
