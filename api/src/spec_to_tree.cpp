// The one place that decides which fields a written DistBenchmark carries,
// in which order and in which form; emitYaml and emitJson only choose the
// syntax. The sections made only of plain values are written from the field
// tables the reader shares (spec_fields.h); the others are written by hand
// here and read by hand in spec_yaml.cpp, whose opening comment says why.
#include <initializer_list>
#include <optional>
#include <type_traits>

#include "distbench/api/dense_layers.h"
#include "spec_fields.h"
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

// Writes a section's field table (spec_fields.h) into a map, each member in
// the form its type calls for; optional ones only when set.
class TableWriter {
 public:
  explicit TableWriter(Node& node) : node_(node) {}

  template <typename T>
  void operator()(const char* key, const T& value) {
    if constexpr (kIsOptional<T>) {
      if (value) node_.add(key, Node::integer(*value));
    } else if constexpr (std::is_same_v<T, bool>) {
      node_.add(key, Node::boolean(value));
    } else if constexpr (std::is_same_v<T, double>) {
      node_.add(key, Node::number(value));
    } else if constexpr (std::is_same_v<T, std::string>) {
      node_.add(key, Node::string(value));
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
      node_.add(key, Node::stringSeq(value));
    } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
      Node seq = Node::seq();
      for (int64_t v : value) seq.push(Node::integer(v));
      node_.add(key, std::move(seq));
    } else {
      static_assert(std::is_integral_v<T>);
      node_.add(key, Node::integer(value));
    }
  }

  template <typename E>
  void operator()(const char* key, const E& value, std::initializer_list<E>) {
    node_.add(key, Node::string(toString(value)));
  }

  template <typename E>
  void operator()(const char* key, const std::vector<E>& values, std::initializer_list<E>) {
    node_.add(key, enumSeq(values));
  }

  void operator()(const char* key, const std::vector<std::string>& values, WrittenWhenGiven) {
    if (!values.empty()) node_.add(key, Node::stringSeq(values));
  }

  void operator()(const char* key, const std::vector<std::string>& tokens, DenseLayerTokens) {
    node_.add(key, denseLayers(tokens));
  }

 private:
  Node& node_;
};

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
  Node node = Node::map();
  hybridFields(h, TableWriter(node));
  return node;
}

Node ddp(const DDPSpec& d) {
  Node node = Node::map();
  ddpFields(d, TableWriter(node));
  return node;
}

Node collectives(const CollectivesSpec& c) {
  Node node = Node::map();
  collectivesFields(c, TableWriter(node));
  return node;
}

Node fabric(const FabricSpec& f) {
  Node node = Node::map();
  fabricFields(f, TableWriter(node));
  return node;
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
    case BenchmarkKind::Fabric:
      node.add("fabric", fabric(b.fabric));
      break;
  }
  return node;
}

Node runtime(const RuntimeSpec& rt) {
  Node node = Node::map();
  runtimeFields(rt, TableWriter(node));
  return node;
}

Node runPolicy(const RunPolicy& rp) {
  Node node = Node::map();
  runPolicyFields(rp, TableWriter(node));
  return node;
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

// Only what is set, so a block reads back as written.
Node local(const LocalSpec& l) {
  Node node = Node::map();
  if (l.links) {
    Node links = Node::map();
    if (l.links->bandwidth) links.add("bandwidth", Node::string(*l.links->bandwidth));
    if (!l.links->ranks.empty()) links.add("ranks", Node::stringMap(l.links->ranks));
    node.add("links", std::move(links));
  }
  if (!l.slow.empty()) {
    Node slow = Node::map();
    for (const auto& [rank, cap] : l.slow) {
      slow.add(rank, Node::map().add("cpu", Node::string(cap.cpu)));
    }
    node.add("slow", std::move(slow));
  }
  return node;
}

}  // namespace

TreeNode specToTree(const DistBenchmark& b) {
  const DistBenchmarkSpec& s = b.spec;
  Node spec = Node::map()
                  .add("topology", topology(s.topology))
                  .add("benchmark", benchmark(s.benchmark))
                  .add("runtime", runtime(s.runtime))
                  .add("runPolicy", runPolicy(s.runPolicy))
                  .add("podTemplates", podTemplates(s.podTemplates));
  if (s.baseline) spec.add("baseline", baseline(*s.baseline));
  if (s.local) spec.add("local", local(*s.local));
  return Node::map()
      .add("apiVersion", Node::string(b.apiVersion))
      .add("kind", Node::string(b.kind))
      .add("metadata", metadata(b.metadata))
      .add("spec", std::move(spec));
}

}  // namespace distbench::api::detail
