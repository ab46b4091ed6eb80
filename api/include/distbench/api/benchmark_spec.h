// The DistBenchmark resource (distbench.io/v1alpha1) as plain C++ values.
// Field names mirror the YAML/JSON keys one to one; defaults are the values of
// PyTorch's DDP+RPC benchmark (seed 000). No LibTorch or YAML types here, so
// the operator, the CLI and the worker can all include this cheaply.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace distbench::api {

inline constexpr const char* kApiVersion = "distbench.io/v1alpha1";
inline constexpr const char* kKind = "DistBenchmark";

struct ObjectMeta {
  std::string name;
  std::string namespace_ = "default";
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
};

struct TopologySpec {
  int trainers = 8;          // spec.topology.trainers, >= 1
  int parameterServers = 8;  // spec.topology.parameterServers, >= 1
};

enum class BenchmarkKind { HybridDDPRPC };
enum class EmbeddingMode { Sum, Mean, Max };
// How a parameter server orders lookups against other trainers' updates.
// Async is the seed's behaviour (distributed autograd + DistributedOptimizer:
// each trainer's step lands whenever it arrives). Sync holds a lookup for step
// s until every trainer's step s-1 update is applied, which makes the run
// deterministic and comparable to a single-process reference.
enum class ParameterServerMode { Async, Sync };

struct HybridDDPRPCSpec {
  int64_t numEmbeddings = 300;   // rows per EmbeddingBag shard
  int64_t embeddingDim = 64;     // columns per shard; dense input = P * dim
  EmbeddingMode embeddingMode = EmbeddingMode::Sum;
  // Dense stack after the concatenated lookups: widths, with "ReLU" where an
  // activation goes. The last entry is the class count (targets 0..N-1).
  std::vector<std::string> denseLayers = {"256", "128", "ReLU", "64", "32", "8"};
  int epochs = 100;
  int warmupEpochs = 5;
  int batchesPerEpoch = 10;
  int minBagIndices = 20;        // indices per batch: uniform in [min, max]
  int maxBagIndices = 50;
  int maxOffsetStep = 10;        // offsets advance by 1..maxOffsetStep
  double learningRate = 0.05;
  ParameterServerMode parameterServerMode = ParameterServerMode::Async;
};

struct BenchmarkSpec {
  BenchmarkKind kind = BenchmarkKind::HybridDDPRPC;
  int64_t seed = 0;
  double bucketCapMB = 25.0;     // DDP gradient bucket cap; first bucket <= 1 MiB
  HybridDDPRPCSpec hybridDDPRPC;
};

enum class Backend { Gloo, NCCL };
enum class Device { CPU, CUDA };

struct RuntimeSpec {
  Backend backend = Backend::Gloo;
  Device device = Device::CPU;
  int masterPort = 29500;
  int metricsPort = 9400;
  int rendezvousTimeoutSeconds = 300;  // every rank joined, or all give up
  int peerTimeoutSeconds = 60;         // longest wait on any one peer message
  int metricsLingerSeconds = 30;       // keep /metrics up after the run
  // LibTorch intra-op threads per rank. Ranks share the machine's cores, so
  // one each keeps them from preempting one another; 0: LibTorch's default.
  int intraOpThreads = 1;
  std::string image = "distbench/worker:latest";
};

struct DistBenchmarkSpec {
  TopologySpec topology;
  BenchmarkSpec benchmark;
  RuntimeSpec runtime;
};

struct DistBenchmark {
  std::string apiVersion = kApiVersion;
  std::string kind = kKind;
  ObjectMeta metadata;
  DistBenchmarkSpec spec;
};

// Total ranks: master + parameter servers + trainers.
inline int worldSize(const DistBenchmarkSpec& s) {
  return 1 + s.topology.parameterServers + s.topology.trainers;
}

// Field-by-field equality: round-trip tests, and the operator's "has the
// spec changed" check.
bool operator==(const ObjectMeta&, const ObjectMeta&);
bool operator==(const TopologySpec&, const TopologySpec&);
bool operator==(const HybridDDPRPCSpec&, const HybridDDPRPCSpec&);
bool operator==(const BenchmarkSpec&, const BenchmarkSpec&);
bool operator==(const RuntimeSpec&, const RuntimeSpec&);
bool operator==(const DistBenchmarkSpec&, const DistBenchmarkSpec&);
bool operator==(const DistBenchmark&, const DistBenchmark&);
inline bool operator!=(const ObjectMeta& a, const ObjectMeta& b) { return !(a == b); }
inline bool operator!=(const TopologySpec& a, const TopologySpec& b) { return !(a == b); }
inline bool operator!=(const HybridDDPRPCSpec& a, const HybridDDPRPCSpec& b) { return !(a == b); }
inline bool operator!=(const BenchmarkSpec& a, const BenchmarkSpec& b) { return !(a == b); }
inline bool operator!=(const RuntimeSpec& a, const RuntimeSpec& b) { return !(a == b); }
inline bool operator!=(const DistBenchmarkSpec& a, const DistBenchmarkSpec& b) { return !(a == b); }
inline bool operator!=(const DistBenchmark& a, const DistBenchmark& b) { return !(a == b); }

const char* toString(BenchmarkKind);
const char* toString(EmbeddingMode);
const char* toString(ParameterServerMode);
const char* toString(Backend);
const char* toString(Device);

}  // namespace distbench::api
