#include "distbench/api/resource_estimate.h"

#include <algorithm>
#include <limits>

#include "distbench/api/dense_layers.h"

namespace distbench::api {
namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kFloatBytes = 4;

int64_t add(int64_t a, int64_t b) { return saturatingAdd(a, b); }
int64_t mul(int64_t a, int64_t b) { return saturatingMul(a, b); }

// An image model's parameters: its layers before the classifier (torchvision's
// counts, less their 1000-class fc), and the width the classifier reads.
struct ImageModelSize {
  const char* name;
  int64_t trunk;
  int64_t features;
};
constexpr ImageModelSize kImageModels[] = {
    {"resnet18", 11'177'000, 512},          {"resnet50", 23'509'000, 2048},
    {"resnet101", 42'501'000, 2048},        {"resnext50_32x4d", 22'980'000, 2048},
    {"resnext101_32x8d", 86'743'000, 2048}, {"smallcnn", 390'000, 256},
};

// The largest of the spec's models, in parameters, with its classifier.
int64_t ddpModelParameters(const DDPSpec& d) {
  int64_t most = 0;
  for (const std::string& name : d.models) {
    for (const ImageModelSize& m : kImageModels) {
      if (name != m.name) continue;
      most = std::max(most, add(m.trunk, mul(m.features + 1, d.numClasses)));
    }
  }
  return most;
}

// Sweep rows of one DDP model: 1, 2, 4, ... ranks on one machine, then
// whole machines (worker/src/ddp/ddp_sweep.cpp), at most log2 + machines.
int64_t ddpRows(const DistBenchmarkSpec& s) {
  const int64_t trainers = std::max(1, s.topology.trainers);
  const int64_t perMachine = std::max(1, s.benchmark.ddp.ranksPerMachine);
  const int64_t onOne = std::min(trainers, perMachine);
  int64_t rows = 1;  // the single-rank baseline
  for (int64_t n = 1; n < onOne; n *= 2) ++rows;
  return rows + 1 + trainers / perMachine;
}

// Sizes of the collectives sweep: minBytes × stepFactor^k ≤ maxBytes.
int64_t collectiveSizes(const CollectivesSpec& k) {
  if (k.minBytes < 1 || k.stepFactor < 2 || k.maxBytes < k.minBytes) return 1;
  int64_t n = 0;
  for (int64_t bytes = k.minBytes; bytes <= k.maxBytes; bytes = mul(bytes, k.stepFactor)) {
    ++n;
    if (bytes > k.maxBytes / k.stepFactor) break;
  }
  return n;
}

}  // namespace

int fabricProbeSide(const FabricSpec& f, Device device) {
  if (f.computeProbeSize > 0) return f.computeProbeSize;
  return device == Device::CUDA ? kFabricCudaProbeSize : kFabricCpuProbeSize;
}

int64_t fabricPairsPlanned(const FabricSpec& f, int64_t trainers) {
  const int64_t n = std::max<int64_t>(trainers, 0);
  const int64_t all = mul(n, n - 1) / 2;
  if (n <= f.allPairsUpTo) return all;
  return std::min(all, add(all / 10, n));
}

int64_t saturatingAdd(int64_t a, int64_t b) {
  a = std::max<int64_t>(a, 0);
  b = std::max<int64_t>(b, 0);
  return a > kInt64Max - b ? kInt64Max : a + b;
}

int64_t saturatingMul(int64_t a, int64_t b) {
  a = std::max<int64_t>(a, 0);
  b = std::max<int64_t>(b, 0);
  if (a == 0 || b == 0) return 0;
  return a > kInt64Max / b ? kInt64Max : a * b;
}

int64_t psMessageBytes(const HybridDDPRPCSpec& h) {
  const int64_t bags = h.maxBagIndices;
  const int64_t request = mul(2 * 8, bags);  // int64 indices and offsets
  const int64_t reply = mul(mul(bags, h.embeddingDim), kFloatBytes);
  return add(kPsHeaderBytes, std::max(request, reply));
}

int64_t denseParameters(const DistBenchmarkSpec& s) {
  const HybridDDPRPCSpec& h = s.benchmark.hybridDDPRPC;
  int64_t width = mul(s.topology.parameterServers, h.embeddingDim);
  int64_t parameters = 0;
  for (const std::string& token : h.denseLayers) {
    const std::optional<DenseLayer> layer = parseDenseLayer(token);
    if (!layer || layer->type != DenseLayer::Type::Linear) continue;
    // weights and bias
    parameters = add(parameters, mul(add(width, 1), layer->outFeatures));
    width = layer->outFeatures;
  }
  return parameters;
}

int64_t rankMemoryBytes(const DistBenchmarkSpec& s, Role role) {
  const int64_t trainers = s.topology.trainers;
  const int64_t servers = s.topology.parameterServers;
  int64_t data = 0;
  switch (s.benchmark.kind) {
    case BenchmarkKind::HybridDDPRPC: {
      const HybridDDPRPCSpec& h = s.benchmark.hybridDDPRPC;
      const int64_t message = psMessageBytes(h);
      if (role == Role::Master) {
        // A request and a reply per parameter server (master.cpp).
        data = mul(mul(2, servers), message);
      } else if (role == Role::ParameterServer) {
        // The shard, its sparse gradient (at most a batch's rows), and per
        // trainer two posted requests and a reply, plus the master's pair.
        const int64_t shard = mul(mul(h.numEmbeddings, h.embeddingDim), kFloatBytes);
        const int64_t buffers = mul(add(mul(3, trainers), 2), message);
        data = add(add(shard, buffers), mul(trainers, message));
      } else {
        // Per parameter server a request, a lookup reply and a step reply
        // (ps_client.cpp), the pooled lookups with their gradients, and the
        // dense stack four times over: parameters, gradients, DDP buckets,
        // the optimizer's copy.
        const int64_t buffers = mul(add(mul(3, servers), 1), message);
        const int64_t lookups = mul(mul(2, servers), message);
        data = add(add(buffers, lookups), mul(denseParameters(s), 4 * kFloatBytes));
      }
      break;
    }
    case BenchmarkKind::DDP: {
      if (role != Role::Trainer) break;
      const DDPSpec& d = s.benchmark.ddp;
      const int64_t input =
          mul(mul(mul(d.batchSize, 3), mul(d.imageSize, d.imageSize)), kFloatBytes);
      data = add(mul(input, kDdpBytesPerInputByte),
                 mul(ddpModelParameters(d), kDdpCopiesPerParameter * kFloatBytes));
      break;
    }
    case BenchmarkKind::Collectives:
      if (role != Role::Trainer) break;
      data = mul(s.benchmark.collectives.maxBytes, kCollectiveBytesPerMaxByte);
      break;
    case BenchmarkKind::Fabric: {
      if (role != Role::Trainer) break;
      // A send and a receive buffer of the largest message, the allreduce
      // buffer, and on the CPU the probe's three n x n float32 matrices.
      const FabricSpec& f = s.benchmark.fabric;
      int64_t largest = 0;
      for (int64_t bytes : f.messageBytes) largest = std::max(largest, bytes);
      data = add(mul(2, largest), f.allreduceBytes);
      if (s.runtime.device == Device::CPU) {
        const int64_t n = fabricProbeSide(f, Device::CPU);
        data = add(data, mul(mul(3, mul(n, n)), kFloatBytes));
      }
      break;
    }
  }
  return add(kRankBaseBytes, add(data, mul(timingSamples(s), role == Role::Master ? 8 : 0)));
}

int64_t timingSamples(const DistBenchmarkSpec& s) {
  const int64_t trainers = s.topology.trainers;
  switch (s.benchmark.kind) {
    case BenchmarkKind::HybridDDPRPC:
      // Per trainer and epoch: its seconds and six phases (master.cpp).
      return mul(mul(trainers, s.benchmark.hybridDDPRPC.epochs), 7);
    case BenchmarkKind::DDP: {
      // Per model, row and rank: five series of `iterations` (ddp_row.cpp).
      const DDPSpec& d = s.benchmark.ddp;
      const int64_t perRow = mul(mul(trainers, 5), d.iterations);
      return mul(mul(static_cast<int64_t>(d.models.size()), ddpRows(s)), perRow);
    }
    case BenchmarkKind::Collectives: {
      // Per op, dtype and size: `iterations` seconds from every rank.
      const CollectivesSpec& k = s.benchmark.collectives;
      const int64_t cases = mul(mul(static_cast<int64_t>(k.ops.size()),
                                    static_cast<int64_t>(k.dtypes.size())),
                                collectiveSizes(k));
      return mul(mul(cases, k.iterations), trainers);
    }
    case BenchmarkKind::Fabric: {
      // Per planned pair, size and direction its samples; per node its
      // probe's; per node and iteration its allreduce seconds.
      const FabricSpec& f = s.benchmark.fabric;
      const int64_t transfers =
          mul(mul(fabricPairsPlanned(f, trainers), static_cast<int64_t>(f.messageBytes.size())),
              mul(2, f.samplesPerPair));
      return add(transfers, mul(trainers, add(f.computeProbeSamples, f.allreduceIterations)));
    }
  }
  return 0;
}

MemoryResources defaultMemory(const DistBenchmarkSpec& s, Role role) {
  constexpr int64_t kMiB = int64_t{1} << 20;
  const int64_t bytes = rankMemoryBytes(s, role);
  const int64_t mib = bytes / kMiB + (bytes % kMiB != 0 ? 1 : 0);
  return {std::to_string(mib) + "Mi", std::to_string(mul(mib, kMemoryLimitFactor)) + "Mi"};
}

}  // namespace distbench::api
