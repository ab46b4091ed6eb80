#include "distbench/api/spec_validation.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "distbench/api/dense_layers.h"
#include "distbench/api/image_models.h"
#include "distbench/api/local_spec.h"
#include "distbench/api/object_names.h"
#include "distbench/api/regression_threshold.h"
#include "distbench/api/role.h"
#include "distbench/api/spec_limits.h"
#include "field_errors.h"
#include "object_name_rules.h"

namespace distbench::api {
namespace {

using detail::checkNamespace;
using detail::checkTypeMeta;
using detail::FieldErrors;
using detail::isDns1123Label;
using detail::isDns1123Subdomain;
using detail::kMaxLabelLength;

// What core/v1 allows as a ConfigMap data key.
bool isConfigMapKey(const std::string& s) {
  if (s.empty() || s.size() > 253 || s == "." || s == "..") return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '_' || c == '.';
  });
}

// A Kubernetes resource quantity, as the CRD's pattern spells it (kept in
// agreement by crd_schema_test): a non-negative decimal number, then an
// exponent (1e3), a binary suffix (Ki..Ei) or a decimal one (n, u, m, k, M,
// G, T, P, E). Kubernetes also takes a sign; negative resources are refused
// for pods anyway, so neither is allowed here. Hand-written, as isInteger in
// spec_yaml.cpp, to stay off std::regex's recursion.
bool isQuantity(const std::string& s) {
  auto digitsFrom = [&s](std::size_t i) {
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i;
  };
  std::size_t i = digitsFrom(0);
  std::size_t mantissaDigits = i;
  if (i < s.size() && s[i] == '.') {
    const std::size_t fraction = i + 1;
    i = digitsFrom(fraction);
    mantissaDigits += i - fraction;
  }
  if (mantissaDigits == 0) return false;
  const std::string suffix = s.substr(i);
  if (suffix.empty()) return true;
  static const std::set<std::string> suffixes = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "n", "u",
                                                 "m",  "k",  "M",  "G",  "T",  "P",  "E"};
  if (suffixes.count(suffix)) return true;
  // An exponent: [eE][+-]?[0-9]+
  if (suffix[0] != 'e' && suffix[0] != 'E') return false;
  std::size_t e = i + 1;
  if (e < s.size() && (s[e] == '+' || s[e] == '-')) ++e;
  const std::size_t end = digitsFrom(e);
  return end > e && end == s.size();
}

void checkMetadata(const DistBenchmark& b, FieldErrors& c) {
  checkTypeMeta(b.apiVersion, b.kind, kKind, c);

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
  } else if (b.spec.topology.trainers >= 1 && b.spec.topology.parameterServers >= 0 &&
             worldSize(b.spec) <= kMaxWorldSize) {
    // The longest name derived from it (always a pod's: "-master-0" is
    // longer than any Service, ConfigMap or NetworkPolicy suffix) must still
    // be a valid label.
    std::string longest = masterServiceName(name);
    for (const std::string& derived :
         {configMapName(name), workersServiceName(name), networkPolicyName(name),
          podName(name, Role::Master, 0),
          podName(name, Role::ParameterServer, std::max(0, b.spec.topology.parameterServers - 1)),
          podName(name, Role::Trainer, b.spec.topology.trainers - 1)}) {
      if (derived.size() > longest.size()) longest = derived;
    }
    if (longest.size() > kMaxLabelLength) {
      c.fail("metadata.name", "too long: the pod name \"" + longest + "\" would be " +
                                  std::to_string(longest.size()) +
                                  " characters, and pod and Service names must be ≤ 63");
    }
  }

  checkNamespace(b.metadata.namespace_, c);
}

void checkDenseLayers(const std::vector<std::string>& tokens, FieldErrors& c) {
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

void checkHybrid(const HybridDDPRPCSpec& h, FieldErrors& c) {
  const std::string hp = "spec.benchmark.hybridDDPRPC.";
  c.atLeast<int64_t>(hp + "numEmbeddings", h.numEmbeddings, 1);
  c.atMost<int64_t>(hp + "numEmbeddings", h.numEmbeddings, kMaxNumEmbeddings);
  c.atLeast<int64_t>(hp + "embeddingDim", h.embeddingDim, 1);
  c.atMost<int64_t>(hp + "embeddingDim", h.embeddingDim, kMaxEmbeddingDim);
  // One shard is a float32 numEmbeddings x embeddingDim table on a
  // parameter server; the bounds above keep the product in 64 bits.
  if (h.numEmbeddings >= 1 && h.embeddingDim >= 1 && h.numEmbeddings <= kMaxNumEmbeddings &&
      h.embeddingDim <= kMaxEmbeddingDim &&
      h.numEmbeddings * h.embeddingDim * 4 > kMaxShardBytes) {
    c.fail(hp + "numEmbeddings", "numEmbeddings × embeddingDim × 4 bytes must be ≤ " +
                                     std::to_string(kMaxShardBytes >> 30) +
                                     " GiB per parameter-server shard");
  }
  checkDenseLayers(h.denseLayers, c);
  c.atLeast(hp + "epochs", h.epochs, 1);
  c.atLeast(hp + "warmupEpochs", h.warmupEpochs, 0);
  c.atLeast(hp + "batchesPerEpoch", h.batchesPerEpoch, 1);
  c.atLeast(hp + "minBagIndices", h.minBagIndices, 1);
  if (h.maxBagIndices > kMaxBagIndices) {
    c.fail(hp + "maxBagIndices", "must be ≤ " + std::to_string(kMaxBagIndices));
  } else if (h.maxBagIndices < h.minBagIndices) {
    c.fail(hp + "maxBagIndices",
           "must be ≥ minBagIndices (" + std::to_string(h.minBagIndices) + ")");
  }
  c.atLeast(hp + "maxOffsetStep", h.maxOffsetStep, 1);
  c.positive(hp + "learningRate", h.learningRate);
}

template <typename T>
void checkNoDuplicates(const std::string& field, const std::vector<T>& values, FieldErrors& c) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (std::find(values.begin(), values.begin() + i, values[i]) != values.begin() + i) {
      c.fail(field + "[" + std::to_string(i) + "]", "duplicate entry");
    }
  }
}

void checkDDP(const DistBenchmarkSpec& s, FieldErrors& c) {
  const DDPSpec& d = s.benchmark.ddp;
  const std::string dp = "spec.benchmark.ddp.";
  if (d.models.empty()) c.fail(dp + "models", "must name at least one model");
  const std::vector<std::string> known = imageModelNames();
  for (std::size_t i = 0; i < d.models.size(); ++i) {
    if (std::find(known.begin(), known.end(), d.models[i]) == known.end()) {
      std::string list;
      for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
      c.fail(dp + "models[" + std::to_string(i) + "]",
             "unknown model \"" + d.models[i] + "\"; known: " + list);
    }
  }
  checkNoDuplicates(dp + "models", d.models, c);
  c.atLeast(dp + "batchSize", d.batchSize, 1);
  // Below 32 pixels the ResNets' five stride-2 stages leave nothing to pool.
  c.atLeast(dp + "imageSize", d.imageSize, 32);
  c.atLeast(dp + "numClasses", d.numClasses, 2);
  c.atLeast(dp + "warmupIterations", d.warmupIterations, 0);
  c.atLeast(dp + "iterations", d.iterations, 1);
  c.positive(dp + "learningRate", d.learningRate);
  if (!(d.momentum >= 0 && d.momentum < 1)) c.fail(dp + "momentum", "must be in [0, 1)");
  if (!(d.weightDecay >= 0)) c.fail(dp + "weightDecay", "must be ≥ 0");
  c.atLeast(dp + "ranksPerMachine", d.ranksPerMachine, 1);
  const int T = s.topology.trainers;
  if (d.ranksPerMachine >= 1 && T > d.ranksPerMachine && T % d.ranksPerMachine != 0) {
    c.fail("spec.topology.trainers",
           "must be ≤ spec.benchmark.ddp.ranksPerMachine (" + std::to_string(d.ranksPerMachine) +
               ") or a multiple of it: the sweep's multi-machine rows use whole machines");
  }
}

void checkCollectives(const DistBenchmarkSpec& s, FieldErrors& c) {
  const CollectivesSpec& k = s.benchmark.collectives;
  const std::string cp = "spec.benchmark.collectives.";
  if (k.ops.empty()) c.fail(cp + "ops", "must name at least one operation");
  checkNoDuplicates(cp + "ops", k.ops, c);
  for (std::size_t i = 0; i < k.ops.size(); ++i) {
    if (k.ops[i] == CollectiveOp::SendRecv && s.topology.trainers < 2) {
      c.fail(cp + "ops[" + std::to_string(i) + "]", "sendrecv needs spec.topology.trainers ≥ 2");
    }
  }
  if (k.dtypes.empty()) c.fail(cp + "dtypes", "must name at least one dtype");
  checkNoDuplicates(cp + "dtypes", k.dtypes, c);
  for (std::size_t i = 0; i < k.dtypes.size(); ++i) {
    if (k.dtypes[i] == DType::BFloat16 && s.runtime.backend != Backend::NCCL) {
      c.fail(cp + "dtypes[" + std::to_string(i) + "]",
             "bfloat16 needs spec.runtime.backend nccl: Gloo cannot reduce it");
    }
  }
  c.atLeast<int64_t>(cp + "minBytes", k.minBytes, 1);
  constexpr int64_t kMaxBytes = int64_t{4} << 30;
  if (k.maxBytes < k.minBytes) {
    c.fail(cp + "maxBytes", "must be ≥ minBytes (" + std::to_string(k.minBytes) + ")");
  } else if (k.maxBytes > kMaxBytes) {
    c.fail(cp + "maxBytes", "must be ≤ " + std::to_string(kMaxBytes) + " (4 GiB)");
  }
  c.atLeast<int64_t>(cp + "stepFactor", k.stepFactor, 2);
  c.atLeast(cp + "warmupIterations", k.warmupIterations, 0);
  c.atLeast(cp + "iterations", k.iterations, 1);
}

void checkFabric(const DistBenchmarkSpec& s, FieldErrors& c) {
  const FabricSpec& f = s.benchmark.fabric;
  const std::string fp = "spec.benchmark.fabric.";
  // A pair is the least there is to measure.
  c.atLeast("spec.topology.trainers", s.topology.trainers, 2);
  if (f.messageBytes.empty()) c.fail(fp + "messageBytes", "must list at least one size");
  if (f.messageBytes.size() > static_cast<std::size_t>(kMaxFabricMessageSizes)) {
    c.fail(fp + "messageBytes",
           "must list at most " + std::to_string(kMaxFabricMessageSizes) + " sizes");
  }
  for (std::size_t i = 0; i < f.messageBytes.size(); ++i) {
    c.between<int64_t>(fp + "messageBytes[" + std::to_string(i) + "]", f.messageBytes[i], 1,
                       kMaxFabricMessageBytes);
  }
  checkNoDuplicates(fp + "messageBytes", f.messageBytes, c);
  c.atLeast(fp + "warmupSamples", f.warmupSamples, 0);
  c.atLeast(fp + "samplesPerPair", f.samplesPerPair, 1);
  c.between(fp + "computeProbeSize", f.computeProbeSize, 0, kMaxFabricProbeSize);
  c.atLeast(fp + "computeProbeSamples", f.computeProbeSamples, 1);
  c.between<int64_t>(fp + "allreduceBytes", f.allreduceBytes, 1, kMaxFabricMessageBytes);
  c.atLeast(fp + "allreduceIterations", f.allreduceIterations, 1);
  if (!(f.thresholdPercent > 0 && f.thresholdPercent < 100)) {
    c.fail(fp + "thresholdPercent", "must be a percentage in (0, 100)");
  }
  c.atLeast(fp + "allPairsUpTo", f.allPairsUpTo, 2);
  if (!f.nodes.empty() && f.nodes.size() != static_cast<std::size_t>(s.topology.trainers)) {
    c.fail(fp + "nodes", "lists " + std::to_string(f.nodes.size()) +
                             " nodes; must list one per trainer (spec.topology.trainers is " +
                             std::to_string(s.topology.trainers) + ") or none");
  }
  for (std::size_t i = 0; i < f.nodes.size(); ++i) {
    if (!isDns1123Subdomain(f.nodes[i])) {
      c.fail(fp + "nodes[" + std::to_string(i) + "]",
             "must be a Kubernetes node name (a DNS-1123 subdomain), got \"" + f.nodes[i] + "\"");
    }
  }
  // Several ranks on one node only where the anti-affinity is off: with it
  // the repeated rank could never be scheduled.
  if (f.onePerNode) {
    for (std::size_t i = 0; i < f.nodes.size(); ++i) {
      if (std::find(f.nodes.begin(), f.nodes.begin() + i, f.nodes[i]) != f.nodes.begin() + i) {
        c.fail(fp + "nodes[" + std::to_string(i) + "]",
               "repeats node \"" + f.nodes[i] + "\"; a node holds several ranks only with " +
                   fp + "onePerNode: false");
      }
    }
  }
}

void checkRunPolicy(const RunPolicy& rp, FieldErrors& c) {
  const std::string rpp = "spec.runPolicy.";
  c.atLeast(rpp + "backoffLimit", rp.backoffLimit, 0);
  if (rp.activeDeadlineSeconds) {
    c.atLeast<int64_t>(rpp + "activeDeadlineSeconds", *rp.activeDeadlineSeconds, 1);
  }
  if (rp.ttlSecondsAfterFinished) {
    c.atLeast<int64_t>(rpp + "ttlSecondsAfterFinished", *rp.ttlSecondsAfterFinished, 0);
  }
}

void checkBaseline(const DistBenchmark& b, FieldErrors& c) {
  if (!b.spec.baseline) return;
  const Baseline& base = *b.spec.baseline;
  const std::string bp = "spec.baseline.";
  if (base.benchmark.has_value() == base.configMap.has_value()) {
    c.fail("spec.baseline", "set exactly one of benchmark and configMap");
  }
  if (base.benchmark) {
    if (!isDns1123Label(*base.benchmark)) {
      c.fail(bp + "benchmark", "must be a DistBenchmark's name (a DNS-1123 label), got \"" +
                                   *base.benchmark + "\"");
    } else if (*base.benchmark == b.metadata.name) {
      c.fail(bp + "benchmark", "names this benchmark itself; a run cannot be its own baseline");
    }
  }
  if (base.configMap) {
    if (base.configMap->name.empty()) {
      c.fail(bp + "configMap.name", "required");
    } else if (!isDns1123Subdomain(base.configMap->name)) {
      c.fail(bp + "configMap.name", "must be a ConfigMap's name (a DNS-1123 subdomain), got \"" +
                                        base.configMap->name + "\"");
    }
    if (base.configMap->key.empty()) {
      c.fail(bp + "configMap.key", "required");
    } else if (!isConfigMapKey(base.configMap->key)) {
      c.fail(bp + "configMap.key",
             "must be a ConfigMap key: letters, digits, '-', '_' and '.', got \"" +
                 base.configMap->key + "\"");
    }
  }
  if (!isRegressionThresholdPercent(base.thresholdPercent)) {
    c.fail(bp + "thresholdPercent", std::string("must be ") + kRegressionThresholdRule);
  }
}

void checkQuantities(const std::string& field, const std::map<std::string, std::string>& values,
                     FieldErrors& c) {
  for (const auto& [name, quantity] : values) {
    if (name.empty()) {
      c.fail(field, "resource names must not be empty");
    } else if (!isQuantity(quantity)) {
      c.fail(field + "." + name,
             "must be a quantity such as 2, 500m or 4Gi, got \"" + quantity + "\"");
    }
  }
}

// What core/v1 requires of a pod's toleration, so that pods built from it are
// not refused by the API server.
void checkToleration(const std::string& field, const Toleration& t, FieldErrors& c) {
  const std::string op = t.operator_;
  if (op != "Equal" && op != "Exists") {
    c.fail(field + ".operator", "must be one of Equal, Exists");
  } else if (op == "Exists" && !t.value.empty()) {
    c.fail(field + ".value", "must be empty when operator is Exists");
  } else if (op == "Equal" && t.key.empty()) {
    c.fail(field + ".operator", "must be Exists when key is empty (which tolerates every taint)");
  }
  if (!t.effect.empty() && t.effect != "NoSchedule" && t.effect != "PreferNoSchedule" &&
      t.effect != "NoExecute") {
    c.fail(field + ".effect", "must be one of NoSchedule, PreferNoSchedule, NoExecute");
  }
  if (t.tolerationSeconds && t.effect != "NoExecute") {
    c.fail(field + ".tolerationSeconds", "only allowed when effect is NoExecute");
  }
}

bool isCapabilityName(const std::string& s) {
  if (s.empty()) return false;
  for (char ch : s)
    if (!((ch >= 'A' && ch <= 'Z') || ch == '_' || (ch >= '0' && ch <= '9'))) return false;
  return true;
}

void checkSecurity(const std::string& field, const PodTemplate& t, FieldErrors& c) {
  const PodSecurityOverrides& p = t.podSecurityContext;
  const std::string pp = field + ".podSecurityContext.";
  if (p.runAsUser) c.between<int64_t>(pp + "runAsUser", *p.runAsUser, 0, 2147483647);
  if (p.runAsGroup) c.between<int64_t>(pp + "runAsGroup", *p.runAsGroup, 0, 2147483647);
  if (p.fsGroup) c.between<int64_t>(pp + "fsGroup", *p.fsGroup, 0, 2147483647);
  // The kubelet refuses to start a container that must not run as root
  // but is told to: say so here rather than as a pod stuck in CreateContainerConfigError.
  if (p.runAsUser && *p.runAsUser == 0 && p.runAsNonRoot.value_or(true)) {
    c.fail(pp + "runAsUser", "0 (root) needs runAsNonRoot: false in the same podSecurityContext");
  }
  if (p.seccompProfile) {
    const SeccompProfile& sp = *p.seccompProfile;
    if (sp.type.empty()) {
      c.fail(pp + "seccompProfile.type", "required: RuntimeDefault, Localhost or Unconfined");
    } else if (sp.type == "Localhost" && sp.localhostProfile.empty()) {
      c.fail(pp + "seccompProfile.localhostProfile", "required when type is Localhost");
    } else if (sp.type != "Localhost" && !sp.localhostProfile.empty()) {
      c.fail(pp + "seccompProfile.localhostProfile", "only allowed when type is Localhost");
    }
  }
  const ContainerSecurityOverrides& s = t.securityContext;
  const std::string cp = field + ".securityContext.capabilities.";
  for (const auto& [list, name] : {std::pair{&s.capabilitiesAdd, "add"},
                                   std::pair{&s.capabilitiesDrop, "drop"}}) {
    if (!*list) continue;
    for (std::size_t i = 0; i < (*list)->size(); ++i) {
      if (!isCapabilityName((**list)[i]))
        c.fail(cp + name + "[" + std::to_string(i) + "]",
               "must be a capability name such as ALL, NET_ADMIN or IPC_LOCK");
    }
  }
}

void checkPodTemplate(const std::string& field, const PodTemplate& t, FieldErrors& c) {
  checkSecurity(field, t, c);
  checkQuantities(field + ".resources.requests", t.requests, c);
  checkQuantities(field + ".resources.limits", t.limits, c);
  if (t.nodeSelector.count("")) c.fail(field + ".nodeSelector", "keys must not be empty");
  for (std::size_t i = 0; i < t.tolerations.size(); ++i) {
    checkToleration(field + ".tolerations[" + std::to_string(i) + "]", t.tolerations[i], c);
  }
}

void checkSpec(const DistBenchmarkSpec& s, FieldErrors& c) {
  c.atLeast("spec.topology.trainers", s.topology.trainers, 1);
  c.atMost<int64_t>("spec.topology.trainers", s.topology.trainers, kMaxWorldSize - 1);
  c.atMost<int64_t>("spec.topology.parameterServers", s.topology.parameterServers, kMaxWorldSize - 1);
  if (worldSize(s) > kMaxWorldSize) {
    c.fail("spec.topology", "1 master + " + std::to_string(s.topology.parameterServers) +
                                " parameter servers + " + std::to_string(s.topology.trainers) +
                                " trainers is " + std::to_string(worldSize(s)) +
                                " ranks; at most " + std::to_string(kMaxWorldSize) +
                                " are supported");
  }
  c.positive("spec.benchmark.bucketCapMB", s.benchmark.bucketCapMB);
  switch (s.benchmark.kind) {
    case BenchmarkKind::HybridDDPRPC:
      c.atLeast("spec.topology.parameterServers", s.topology.parameterServers, 1);
      checkHybrid(s.benchmark.hybridDDPRPC, c);
      break;
    case BenchmarkKind::DDP:
    case BenchmarkKind::Collectives:
    case BenchmarkKind::Fabric:
      if (s.topology.parameterServers != 0) {
        c.fail("spec.topology.parameterServers", std::string("must be 0 for kind ") +
                                                     toString(s.benchmark.kind) +
                                                     ": only HybridDDPRPC has parameter servers");
      }
      if (s.benchmark.kind == BenchmarkKind::DDP) {
        checkDDP(s, c);
      } else if (s.benchmark.kind == BenchmarkKind::Collectives) {
        checkCollectives(s, c);
      } else {
        checkFabric(s, c);
      }
      break;
  }

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
  // NCCL only moves CUDA tensors. Gloo moves both: on CUDA tensors it is how
  // several ranks share one GPU, which NCCL refuses.
  if (r.backend == Backend::NCCL && r.device != Device::CUDA) {
    c.fail("spec.runtime.backend", "nccl needs spec.runtime.device cuda");
  }
  if (r.gpusPerRank) {
    // A CPU run that names GPUs was meant for a GPU: say so rather than run
    // it on CPU and request nothing.
    if (r.device != Device::CUDA) {
      c.fail("spec.runtime.gpusPerRank", "gpusPerRank needs spec.runtime.device cuda");
    }
    c.between("spec.runtime.gpusPerRank", *r.gpusPerRank, 1, kMaxGpusPerRank);
  }
  // An empty image is the operator's default for the device: nothing to check.

  checkRunPolicy(s.runPolicy, c);
  checkPodTemplate("spec.podTemplates.master", s.podTemplates.master, c);
  checkPodTemplate("spec.podTemplates.parameterServer", s.podTemplates.parameterServer, c);
  checkPodTemplate("spec.podTemplates.trainer", s.podTemplates.trainer, c);
}

}  // namespace

std::vector<FieldError> validate(const DistBenchmark& benchmark) {
  FieldErrors checker;
  checkMetadata(benchmark, checker);
  checkSpec(benchmark.spec, checker);
  checkBaseline(benchmark, checker);
  std::vector<FieldError> errors = checker.take();
  // The derived limits multiply fields the checks above bound from below
  // only; on a spec that failed those, they would add noise, not news.
  if (errors.empty()) errors = checkSpecLimits(benchmark.spec);
  std::vector<FieldError> local = validateLocal(benchmark.spec);
  errors.insert(errors.end(), local.begin(), local.end());
  return errors;
}

void validateOrThrow(const DistBenchmark& benchmark) {
  std::vector<FieldError> errors = validate(benchmark);
  if (!errors.empty()) throw SpecError(std::move(errors));
}

}  // namespace distbench::api
