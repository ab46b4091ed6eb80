#include "distbench/api/benchmark_spec.h"

#include <tuple>

namespace distbench::api {

bool operator==(const ObjectMeta& a, const ObjectMeta& b) {
  return std::tie(a.name, a.namespace_, a.labels, a.annotations) ==
         std::tie(b.name, b.namespace_, b.labels, b.annotations);
}

bool operator==(const TopologySpec& a, const TopologySpec& b) {
  return a.trainers == b.trainers && a.parameterServers == b.parameterServers;
}

bool operator==(const HybridDDPRPCSpec& a, const HybridDDPRPCSpec& b) {
  return std::tie(a.numEmbeddings, a.embeddingDim, a.embeddingMode, a.denseLayers, a.epochs,
                  a.warmupEpochs, a.batchesPerEpoch, a.minBagIndices, a.maxBagIndices,
                  a.maxOffsetStep, a.learningRate, a.parameterServerMode) ==
         std::tie(b.numEmbeddings, b.embeddingDim, b.embeddingMode, b.denseLayers, b.epochs,
                  b.warmupEpochs, b.batchesPerEpoch, b.minBagIndices, b.maxBagIndices,
                  b.maxOffsetStep, b.learningRate, b.parameterServerMode);
}

bool operator==(const BenchmarkSpec& a, const BenchmarkSpec& b) {
  return std::tie(a.kind, a.seed, a.bucketCapMB, a.hybridDDPRPC) ==
         std::tie(b.kind, b.seed, b.bucketCapMB, b.hybridDDPRPC);
}

bool operator==(const RuntimeSpec& a, const RuntimeSpec& b) {
  return std::tie(a.backend, a.device, a.masterPort, a.metricsPort, a.rendezvousTimeoutSeconds,
                  a.peerTimeoutSeconds, a.metricsLingerSeconds, a.intraOpThreads, a.image) ==
         std::tie(b.backend, b.device, b.masterPort, b.metricsPort, b.rendezvousTimeoutSeconds,
                  b.peerTimeoutSeconds, b.metricsLingerSeconds, b.intraOpThreads, b.image);
}

bool operator==(const DistBenchmarkSpec& a, const DistBenchmarkSpec& b) {
  return a.topology == b.topology && a.benchmark == b.benchmark && a.runtime == b.runtime;
}

bool operator==(const DistBenchmark& a, const DistBenchmark& b) {
  return a.apiVersion == b.apiVersion && a.kind == b.kind && a.metadata == b.metadata &&
         a.spec == b.spec;
}

// These spellings are the YAML/JSON enum values; the parser matches against them.
const char* toString(BenchmarkKind kind) {
  switch (kind) {
    case BenchmarkKind::HybridDDPRPC: return "HybridDDPRPC";
  }
  return "?";
}

const char* toString(EmbeddingMode mode) {
  switch (mode) {
    case EmbeddingMode::Sum: return "sum";
    case EmbeddingMode::Mean: return "mean";
    case EmbeddingMode::Max: return "max";
  }
  return "?";
}

const char* toString(ParameterServerMode mode) {
  switch (mode) {
    case ParameterServerMode::Async: return "Async";
    case ParameterServerMode::Sync: return "Sync";
  }
  return "?";
}

const char* toString(Backend backend) {
  switch (backend) {
    case Backend::Gloo: return "gloo";
    case Backend::NCCL: return "nccl";
  }
  return "?";
}

const char* toString(Device device) {
  switch (device) {
    case Device::CPU: return "cpu";
    case Device::CUDA: return "cuda";
  }
  return "?";
}

}  // namespace distbench::api
