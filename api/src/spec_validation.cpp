#include "distbench/api/spec_validation.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "distbench/api/dense_layers.h"

namespace distbench::api {
namespace {

// Kubernetes' limit for a DNS label, which is what pod hostnames and Service
// names are.
constexpr std::size_t kMaxLabelLength = 63;

bool isLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

bool isDns1123Label(const std::string& s) {
  if (s.empty() || s.size() > kMaxLabelLength) return false;
  if (!isLowerAlnum(s.front()) || !isLowerAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return isLowerAlnum(c) || c == '-'; });
}

class Checker {
 public:
  void fail(std::string field, std::string message) {
    errors_.push_back({std::move(field), std::move(message)});
  }
  template <typename T>
  void atLeast(const std::string& field, T value, T minimum) {
    if (value < minimum) fail(field, "must be ≥ " + std::to_string(minimum));
  }
  void positive(const std::string& field, double value) {
    if (!(value > 0) || !std::isfinite(value)) fail(field, "must be > 0");
  }
  void port(const std::string& field, int value) {
    if (value < 1 || value > 65535) fail(field, "must be in 1..65535");
  }
  std::vector<FieldError> take() { return std::move(errors_); }

 private:
  std::vector<FieldError> errors_;
};

void checkMetadata(const DistBenchmark& b, Checker& c) {
  if (b.apiVersion != kApiVersion) c.fail("apiVersion", std::string("must be ") + kApiVersion);
  if (b.kind != kKind) c.fail("kind", std::string("must be ") + kKind);

  const std::string& name = b.metadata.name;
  if (name.empty()) {
    c.fail("metadata.name", "required");
  } else if (!isDns1123Label(name)) {
    c.fail("metadata.name",
           "must be a DNS-1123 label: at most 63 lowercase letters, digits and '-', "
           "starting and ending with a letter or digit");
  } else if (!(name.front() >= 'a' && name.front() <= 'z')) {
    c.fail("metadata.name",
           "must start with a letter: it prefixes the master Service's name, "
           "which Kubernetes requires to be a DNS-1035 label");
  } else if (b.spec.topology.trainers >= 1 && b.spec.topology.parameterServers >= 1) {
    // The longest name derived from it must still be a valid label.
    std::string longest = name + "-master-0";
    for (const std::string& derived :
         {name + "-ps-" + std::to_string(b.spec.topology.parameterServers - 1),
          name + "-trainer-" + std::to_string(b.spec.topology.trainers - 1)}) {
      if (derived.size() > longest.size()) longest = derived;
    }
    if (longest.size() > kMaxLabelLength) {
      c.fail("metadata.name", "too long: the pod name \"" + longest + "\" would be " +
                                  std::to_string(longest.size()) +
                                  " characters, and pod and Service names must be ≤ 63");
    }
  }

  if (!isDns1123Label(b.metadata.namespace_)) {
    c.fail("metadata.namespace",
           "must be a DNS-1123 label: at most 63 lowercase letters, digits and '-', "
           "starting and ending with a letter or digit");
  }
}

void checkDenseLayers(const std::vector<std::string>& tokens, Checker& c) {
  const std::string field = "spec.benchmark.hybridDDPRPC.denseLayers";
  if (tokens.empty()) {
    c.fail(field, "must not be empty: the last entry is the class count");
    return;
  }
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::string path = field + "[" + std::to_string(i) + "]";
    std::optional<DenseLayer> layer = parseDenseLayer(tokens[i]);
    if (!layer) {
      c.fail(path, "must be a positive integer or ReLU, got \"" + tokens[i] + "\"");
    } else if (i + 1 == tokens.size() &&
               (layer->type != DenseLayer::Type::Linear || layer->outFeatures < 2)) {
      c.fail(path, "the last entry is the class count: must be an integer ≥ 2");
    }
  }
}

void checkSpec(const DistBenchmarkSpec& s, Checker& c) {
  c.atLeast("spec.topology.trainers", s.topology.trainers, 1);
  c.atLeast("spec.topology.parameterServers", s.topology.parameterServers, 1);

  c.positive("spec.benchmark.bucketCapMB", s.benchmark.bucketCapMB);

  const HybridDDPRPCSpec& h = s.benchmark.hybridDDPRPC;
  const std::string hp = "spec.benchmark.hybridDDPRPC.";
  c.atLeast<int64_t>(hp + "numEmbeddings", h.numEmbeddings, 1);
  c.atLeast<int64_t>(hp + "embeddingDim", h.embeddingDim, 1);
  checkDenseLayers(h.denseLayers, c);
  c.atLeast(hp + "epochs", h.epochs, 1);
  c.atLeast(hp + "warmupEpochs", h.warmupEpochs, 0);
  c.atLeast(hp + "batchesPerEpoch", h.batchesPerEpoch, 1);
  c.atLeast(hp + "minBagIndices", h.minBagIndices, 1);
  if (h.maxBagIndices < h.minBagIndices) {
    c.fail(hp + "maxBagIndices",
           "must be ≥ minBagIndices (" + std::to_string(h.minBagIndices) + ")");
  }
  c.atLeast(hp + "maxOffsetStep", h.maxOffsetStep, 1);
  c.positive(hp + "learningRate", h.learningRate);

  const RuntimeSpec& r = s.runtime;
  c.port("spec.runtime.masterPort", r.masterPort);
  c.port("spec.runtime.metricsPort", r.metricsPort);
  if (r.masterPort == r.metricsPort) {
    c.fail("spec.runtime.metricsPort", "must differ from spec.runtime.masterPort");
  }
  c.atLeast("spec.runtime.rendezvousTimeoutSeconds", r.rendezvousTimeoutSeconds, 1);
  c.atLeast("spec.runtime.peerTimeoutSeconds", r.peerTimeoutSeconds, 1);
  c.atLeast("spec.runtime.metricsLingerSeconds", r.metricsLingerSeconds, 0);
  c.atLeast("spec.runtime.intraOpThreads", r.intraOpThreads, 0);
  // NCCL only moves CUDA tensors, and Gloo on CUDA is not a configuration we benchmark.
  if (r.backend == Backend::NCCL && r.device != Device::CUDA) {
    c.fail("spec.runtime.backend", "nccl needs spec.runtime.device cuda");
  }
  if (r.device == Device::CUDA && r.backend != Backend::NCCL) {
    c.fail("spec.runtime.device", "cuda needs spec.runtime.backend nccl");
  }
  if (r.image.empty()) c.fail("spec.runtime.image", "must not be empty");
}

}  // namespace

std::vector<FieldError> validate(const DistBenchmark& benchmark) {
  Checker checker;
  checkMetadata(benchmark, checker);
  checkSpec(benchmark.spec, checker);
  return checker.take();
}

void validateOrThrow(const DistBenchmark& benchmark) {
  std::vector<FieldError> errors = validate(benchmark);
  if (!errors.empty()) throw SpecError(std::move(errors));
}

}  // namespace distbench::api
