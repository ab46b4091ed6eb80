// The one place that decides which fields a written DistBenchmark carries,
// in which order and in which form; emitYaml and emitJson only choose the
// syntax.
#include <optional>

#include "distbench/api/dense_layers.h"
#include "spec_tree.h"

namespace distbench::api::detail {
namespace {

using Node = TreeNode;

template <typename E>
Node enumSeq(const std::vector<E>& values) {
  Node seq = Node::seq();
  for (E v : values) seq.push(Node::string(toString(v)));
  return seq;
}

// Canonical widths are int-or-string, so YAML can write them as the integers
// people write; anything else ("relu", "064") stays a string.
Node denseLayers(const std::vector<std::string>& tokens) {
  Node seq = Node::seq();
  for (const std::string& token : tokens) {
    std::optional<DenseLayer> layer = parseDenseLayer(token);
    const bool width = layer && layer->type == DenseLayer::Type::Linear &&
                       std::to_string(layer->outFeatures) == token;
    seq.push(width ? Node::intOrString(token) : Node::string(token));
  }
  return seq;
}

Node metadata(const ObjectMeta& m) {
  return Node::map()
      .add("name", Node::string(m.name))
      .add("namespace", Node::string(m.namespace_))
      .add("labels", Node::stringMap(m.labels))
      .add("annotations", Node::stringMap(m.annotations));
}

Node topology(const TopologySpec& t) {
  return Node::map()
      .add("trainers", Node::integer(t.trainers))
      .add("parameterServers", Node::integer(t.parameterServers));
}

Node hybrid(const HybridDDPRPCSpec& h) {
  return Node::map()
      .add("numEmbeddings", Node::integer(h.numEmbeddings))
      .add("embeddingDim", Node::integer(h.embeddingDim))
      .add("embeddingMode", Node::string(toString(h.embeddingMode)))
      .add("denseLayers", denseLayers(h.denseLayers))
      .add("epochs", Node::integer(h.epochs))
      .add("warmupEpochs", Node::integer(h.warmupEpochs))
      .add("batchesPerEpoch", Node::integer(h.batchesPerEpoch))
      .add("minBagIndices", Node::integer(h.minBagIndices))
      .add("maxBagIndices", Node::integer(h.maxBagIndices))
      .add("maxOffsetStep", Node::integer(h.maxOffsetStep))
      .add("learningRate", Node::number(h.learningRate))
      .add("parameterServerMode", Node::string(toString(h.parameterServerMode)));
}

Node ddp(const DDPSpec& d) {
  return Node::map()
      .add("models", Node::stringSeq(d.models))
      .add("batchSize", Node::integer(d.batchSize))
      .add("imageSize", Node::integer(d.imageSize))
      .add("numClasses", Node::integer(d.numClasses))
      .add("warmupIterations", Node::integer(d.warmupIterations))
      .add("iterations", Node::integer(d.iterations))
      .add("learningRate", Node::number(d.learningRate))
      .add("momentum", Node::number(d.momentum))
      .add("weightDecay", Node::number(d.weightDecay))
      .add("ranksPerMachine", Node::integer(d.ranksPerMachine));
}

Node collectives(const CollectivesSpec& c) {
  return Node::map()
      .add("ops", enumSeq(c.ops))
      .add("dtypes", enumSeq(c.dtypes))
      .add("minBytes", Node::integer(c.minBytes))
      .add("maxBytes", Node::integer(c.maxBytes))
      .add("stepFactor", Node::integer(c.stepFactor))
      .add("warmupIterations", Node::integer(c.warmupIterations))
      .add("iterations", Node::integer(c.iterations));
}

// Only the section of the benchmark's kind: the others are defaults the
// parser would refuse to see for this kind.
Node benchmark(const BenchmarkSpec& b) {
  Node node = Node::map()
                  .add("kind", Node::string(toString(b.kind)))
                  .add("seed", Node::integer(b.seed))
                  .add("bucketCapMB", Node::number(b.bucketCapMB));
  switch (b.kind) {
    case BenchmarkKind::HybridDDPRPC:
      node.add("hybridDDPRPC", hybrid(b.hybridDDPRPC));
      break;
    case BenchmarkKind::DDP:
      node.add("ddp", ddp(b.ddp));
      break;
    case BenchmarkKind::Collectives:
      node.add("collectives", collectives(b.collectives));
      break;
  }
  return node;
}

// gpusPerRank only when set: it is refused without device cuda.
Node runtime(const RuntimeSpec& rt) {
  Node node = Node::map()
                  .add("backend", Node::string(toString(rt.backend)))
                  .add("device", Node::string(toString(rt.device)));
  if (rt.gpusPerRank) node.add("gpusPerRank", Node::integer(*rt.gpusPerRank));
  return node.add("masterPort", Node::integer(rt.masterPort))
      .add("metricsPort", Node::integer(rt.metricsPort))
      .add("rendezvousTimeoutSeconds", Node::integer(rt.rendezvousTimeoutSeconds))
      .add("peerTimeoutSeconds", Node::integer(rt.peerTimeoutSeconds))
      .add("metricsLingerSeconds", Node::integer(rt.metricsLingerSeconds))
      .add("intraOpThreads", Node::integer(rt.intraOpThreads))
      .add("image", Node::string(rt.image));
}

// Optional fields are written only when set.
Node runPolicy(const RunPolicy& rp) {
  Node node = Node::map().add("backoffLimit", Node::integer(rp.backoffLimit));
  if (rp.activeDeadlineSeconds) {
    node.add("activeDeadlineSeconds", Node::integer(*rp.activeDeadlineSeconds));
  }
  if (rp.ttlSecondsAfterFinished) {
    node.add("ttlSecondsAfterFinished", Node::integer(*rp.ttlSecondsAfterFinished));
  }
  return node.add("cleanPodPolicy", Node::string(toString(rp.cleanPodPolicy)));
}

// An empty effect is an absent one (the schema allows only the three effects).
Node toleration(const Toleration& t) {
  Node node = Node::map()
                  .add("key", Node::string(t.key))
                  .add("operator", Node::string(t.operator_))
                  .add("value", Node::string(t.value));
  if (!t.effect.empty()) node.add("effect", Node::string(t.effect));
  if (t.tolerationSeconds) node.add("tolerationSeconds", Node::integer(*t.tolerationSeconds));
  return node;
}

// Only the overrides that are set: an empty object keeps every restricted
// default.
Node podSecurity(const PodSecurityOverrides& o) {
  Node node = Node::map();
  if (o.runAsNonRoot) node.add("runAsNonRoot", Node::boolean(*o.runAsNonRoot));
  if (o.runAsUser) node.add("runAsUser", Node::integer(*o.runAsUser));
  if (o.runAsGroup) node.add("runAsGroup", Node::integer(*o.runAsGroup));
  if (o.fsGroup) node.add("fsGroup", Node::integer(*o.fsGroup));
  if (o.seccompProfile) {
    Node profile = Node::map().add("type", Node::string(o.seccompProfile->type));
    if (!o.seccompProfile->localhostProfile.empty()) {
      profile.add("localhostProfile", Node::string(o.seccompProfile->localhostProfile));
    }
    node.add("seccompProfile", std::move(profile));
  }
  return node;
}

Node containerSecurity(const ContainerSecurityOverrides& o) {
  Node node = Node::map();
  if (o.allowPrivilegeEscalation) {
    node.add("allowPrivilegeEscalation", Node::boolean(*o.allowPrivilegeEscalation));
  }
  if (o.readOnlyRootFilesystem) {
    node.add("readOnlyRootFilesystem", Node::boolean(*o.readOnlyRootFilesystem));
  }
  if (o.capabilitiesAdd || o.capabilitiesDrop) {
    Node caps = Node::map();
    if (o.capabilitiesAdd) caps.add("add", Node::stringSeq(*o.capabilitiesAdd));
    if (o.capabilitiesDrop) caps.add("drop", Node::stringSeq(*o.capabilitiesDrop));
    node.add("capabilities", std::move(caps));
  }
  return node;
}

// Quantities are strings ("2"), which both the library and the API server
// read back as the same quantity.
Node podTemplate(const PodTemplate& t) {
  Node tolerations = Node::seq();
  for (const Toleration& each : t.tolerations) tolerations.push(toleration(each));
  return Node::map()
      .add("image", Node::string(t.image))
      .add("resources", Node::map()
                            .add("requests", Node::stringMap(t.requests))
                            .add("limits", Node::stringMap(t.limits)))
      .add("nodeSelector", Node::stringMap(t.nodeSelector))
      .add("tolerations", std::move(tolerations))
      .add("podSecurityContext", podSecurity(t.podSecurityContext))
      .add("securityContext", containerSecurity(t.securityContext));
}

Node podTemplates(const PodTemplates& t) {
  return Node::map()
      .add("master", podTemplate(t.master))
      .add("parameterServer", podTemplate(t.parameterServer))
      .add("trainer", podTemplate(t.trainer));
}

}  // namespace

// Only the source that is set.
Node baseline(const Baseline& b) {
  Node node = Node::map();
  if (b.benchmark) node.add("benchmark", Node::string(*b.benchmark));
  if (b.configMap) {
    node.add("configMap", Node::map()
                              .add("name", Node::string(b.configMap->name))
                              .add("key", Node::string(b.configMap->key)));
  }
  return node.add("thresholdPercent", Node::number(b.thresholdPercent));
}

TreeNode specToTree(const DistBenchmark& b) {
  const DistBenchmarkSpec& s = b.spec;
  Node spec = Node::map()
                  .add("topology", topology(s.topology))
                  .add("benchmark", benchmark(s.benchmark))
                  .add("runtime", runtime(s.runtime))
                  .add("runPolicy", runPolicy(s.runPolicy))
                  .add("podTemplates", podTemplates(s.podTemplates));
  if (s.baseline) spec.add("baseline", baseline(*s.baseline));
  return Node::map()
      .add("apiVersion", Node::string(b.apiVersion))
      .add("kind", Node::string(b.kind))
      .add("metadata", metadata(b.metadata))
      .add("spec", std::move(spec));
}

}  // namespace distbench::api::detail
