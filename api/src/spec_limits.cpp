#include "distbench/api/spec_limits.h"

#include <cstdio>
#include <string>

#include "distbench/api/dense_layers.h"
#include "distbench/api/resource_estimate.h"
#include "distbench/api/role.h"

namespace distbench::api {
namespace {

std::string bytesText(int64_t bytes) {
  constexpr int64_t kMiB = int64_t{1} << 20, kGiB = int64_t{1} << 30;
  const auto in = [bytes](int64_t unit, const char* name) {
    if (bytes % unit == 0) return std::to_string(bytes / unit) + " " + name;
    char text[32];
    std::snprintf(text, sizeof text, "%.1f %s", static_cast<double>(bytes) / unit, name);
    return std::string(text);
  };
  if (bytes >= kGiB) return in(kGiB, "GiB");
  if (bytes >= kMiB) return in(kMiB, "MiB");
  return std::to_string(bytes) + " bytes";
}

class Limits {
 public:
  // `what` says how the value is derived, e.g. "warmupEpochs + epochs".
  void atMost(const std::string& field, const std::string& what, int64_t value, int64_t limit,
              bool bytes = false) {
    if (value <= limit) return;
    const auto text = [bytes](int64_t v) { return bytes ? bytesText(v) : std::to_string(v); };
    errors_.push_back({field, what + " is " + (value == INT64_MAX ? "beyond 2^63" : text(value)) +
                                  ", must be ≤ " + text(limit) + " (" + kDerivedLimitNote + ")"});
  }
  std::vector<FieldError> take() { return std::move(errors_); }

 private:
  std::vector<FieldError> errors_;
};

void checkHybrid(const DistBenchmarkSpec& s, Limits& l) {
  const HybridDDPRPCSpec& h = s.benchmark.hybridDDPRPC;
  const std::string hp = "spec.benchmark.hybridDDPRPC.";
  const int64_t rounds = saturatingAdd(h.warmupEpochs, h.epochs);
  l.atMost(hp + "epochs", "warmupEpochs + epochs", rounds, kMaxRounds);
  l.atMost(hp + "batchesPerEpoch", "(warmupEpochs + epochs) × batchesPerEpoch",
           saturatingMul(rounds, h.batchesPerEpoch), kMaxTrainingSteps);
  l.atMost(hp + "maxBagIndices", "the parameter-server message (4 × maxBagIndices × embeddingDim)",
           psMessageBytes(h), kMaxPsMessageBytes, true);
  for (std::size_t i = 0; i < h.denseLayers.size(); ++i) {
    const std::optional<DenseLayer> layer = parseDenseLayer(h.denseLayers[i]);
    if (layer && layer->type == DenseLayer::Type::Linear) {
      l.atMost(hp + "denseLayers[" + std::to_string(i) + "]", "the layer's width",
               layer->outFeatures, kMaxDenseWidth);
    }
  }
  l.atMost(hp + "denseLayers", "the dense stack's parameters (input parameterServers × embeddingDim)",
           denseParameters(s), kMaxDenseParameters);
}

void checkDDP(const DistBenchmarkSpec& s, Limits& l) {
  const DDPSpec& d = s.benchmark.ddp;
  const std::string dp = "spec.benchmark.ddp.";
  l.atMost(dp + "iterations", "warmupIterations + iterations",
           saturatingAdd(d.warmupIterations, d.iterations), kMaxRounds);
  l.atMost(dp + "batchSize", "the input batch (batchSize × 3 × imageSize² × 4)",
           saturatingMul(saturatingMul(d.batchSize, 12), saturatingMul(d.imageSize, d.imageSize)),
           kMaxDdpInputBytes, true);
  l.atMost(dp + "numClasses", "numClasses", d.numClasses, kMaxDdpNumClasses);
}

void checkCollectives(const DistBenchmarkSpec& s, Limits& l) {
  const CollectivesSpec& k = s.benchmark.collectives;
  l.atMost("spec.benchmark.collectives.iterations", "warmupIterations + iterations",
           saturatingAdd(k.warmupIterations, k.iterations), kMaxRounds);
}

void checkFabric(const DistBenchmarkSpec& s, Limits& l) {
  const FabricSpec& f = s.benchmark.fabric;
  const std::string fp = "spec.benchmark.fabric.";
  l.atMost(fp + "samplesPerPair", "warmupSamples + samplesPerPair",
           saturatingAdd(f.warmupSamples, f.samplesPerPair), kMaxRounds);
  l.atMost(fp + "computeProbeSamples", "computeProbeSamples", f.computeProbeSamples, kMaxRounds);
  l.atMost(fp + "allreduceIterations", "allreduceIterations", f.allreduceIterations, kMaxRounds);
}

// The field a user changes to bring a kind's samples or memory down.
const char* sampleField(BenchmarkKind kind) {
  switch (kind) {
    case BenchmarkKind::HybridDDPRPC:
      return "spec.benchmark.hybridDDPRPC.epochs";
    case BenchmarkKind::DDP:
      return "spec.benchmark.ddp.iterations";
    case BenchmarkKind::Collectives:
      return "spec.benchmark.collectives.iterations";
    case BenchmarkKind::Fabric:
      return "spec.benchmark.fabric.samplesPerPair";
  }
  return "spec.benchmark";
}

// The field that shrinks a rank's memory: the one behind its largest part.
const char* memoryField(const DistBenchmarkSpec& s, Role role) {
  const int64_t total = rankMemoryBytes(s, role);
  const auto dominates = [total](int64_t part) { return part >= total / 2; };
  const HybridDDPRPCSpec& h = s.benchmark.hybridDDPRPC;
  if (role == Role::Master &&
      (s.benchmark.kind != BenchmarkKind::HybridDDPRPC ||
       dominates(saturatingMul(timingSamples(s), 8)))) {
    return sampleField(s.benchmark.kind);
  }
  switch (s.benchmark.kind) {
    case BenchmarkKind::HybridDDPRPC:
      if (role == Role::ParameterServer &&
          dominates(saturatingMul(saturatingMul(h.numEmbeddings, h.embeddingDim), 4))) {
        return "spec.benchmark.hybridDDPRPC.numEmbeddings";
      }
      if (role == Role::Trainer && dominates(saturatingMul(denseParameters(s), 16))) {
        return "spec.benchmark.hybridDDPRPC.denseLayers";
      }
      return "spec.benchmark.hybridDDPRPC.maxBagIndices";
    case BenchmarkKind::DDP:
      return "spec.benchmark.ddp.batchSize";
    case BenchmarkKind::Collectives:
      return "spec.benchmark.collectives.maxBytes";
    case BenchmarkKind::Fabric:
      return "spec.benchmark.fabric.messageBytes";
  }
  return "spec.benchmark";
}

}  // namespace

std::vector<FieldError> checkSpecLimits(const DistBenchmarkSpec& s) {
  Limits l;
  switch (s.benchmark.kind) {
    case BenchmarkKind::HybridDDPRPC:
      checkHybrid(s, l);
      break;
    case BenchmarkKind::DDP:
      checkDDP(s, l);
      break;
    case BenchmarkKind::Collectives:
      checkCollectives(s, l);
      break;
    case BenchmarkKind::Fabric:
      checkFabric(s, l);
      break;
  }
  l.atMost(sampleField(s.benchmark.kind), "the timing samples the master keeps (trainers × rounds × series)",
           timingSamples(s), kMaxTimingSamples);
  for (Role role : {Role::Master, Role::ParameterServer, Role::Trainer}) {
    if (role == Role::ParameterServer && s.topology.parameterServers == 0) continue;
    l.atMost(memoryField(s, role),
             std::string("the estimated memory of one ") +
                 (role == Role::ParameterServer ? "parameter-server" : toString(role)) + " rank",
             rankMemoryBytes(s, role), kMaxRankMemoryBytes, true);
  }
  return l.take();
}

}  // namespace distbench::api
