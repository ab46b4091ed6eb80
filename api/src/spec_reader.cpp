// Reads the DistBenchmark spec. The sections made only of plain values (the
// three benchmark kinds, runtime, runPolicy) are read through the field
// tables in spec_fields.h, which the writer shares. The rest are read by hand
// here and written by hand in spec_to_tree.cpp, because each has something a
// table of key and member would have to grow a special case for: topology's
// parameterServers changes a default when absent, the benchmark section
// checks which kind section is present, metadata ignores unknown fields, and
// the Kubernetes-shaped parts (tolerations, security contexts, resources,
// baseline) are written only in some combinations and read into optionals or
// lists of objects.
#include "spec_reader.h"

#include <iterator>
#include <type_traits>

#include "distbench/api/local_spec.h"
#include "spec_fields.h"

namespace distbench::api::detail {
namespace {

using Node = YAML::Node;
using Path = std::string;

// A section's field table (spec_fields.h) as the Reader's fields: each key
// read by the Reader call its member's type calls for.
class TableFields {
 public:
  explicit TableFields(Reader& r) : r_(r) {}
  const std::vector<Reader::Field>& fields() const { return fields_; }

  template <typename T>
  void operator()(const char* key, T& member) {
    Reader& r = r_;
    fields_.push_back({key, [&r, &member](const Node& v, const Path& p) {
                         if constexpr (kIsOptional<T>) {
                           r.optionalInteger(v, p, member);
                         } else if constexpr (std::is_same_v<T, bool>) {
                           r.boolean(v, p, member);
                         } else if constexpr (std::is_same_v<T, double>) {
                           r.number(v, p, member);
                         } else if constexpr (std::is_same_v<T, std::string>) {
                           r.string(v, p, member);
                         } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
                           r.stringList(v, p, member);
                         } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
                           r.integerList(v, p, member);
                         } else {
                           static_assert(std::is_integral_v<T>);
                           r.integer(v, p, member);
                         }
                       }});
  }

  template <typename E>
  void operator()(const char* key, E& member, std::initializer_list<E> allowed) {
    Reader& r = r_;
    fields_.push_back(
        {key, [&r, &member, values = std::vector<E>(allowed)](const Node& v, const Path& p) {
           r.enumeration(v, p, member, values);
         }});
  }

  template <typename E>
  void operator()(const char* key, std::vector<E>& member, std::initializer_list<E> allowed) {
    Reader& r = r_;
    fields_.push_back(
        {key, [&r, &member, values = std::vector<E>(allowed)](const Node& v, const Path& p) {
           r.enumerationList(v, p, member, values);
         }});
  }

  void operator()(const char* key, std::vector<std::string>& member, WrittenWhenGiven) {
    (*this)(key, member);
  }

  void operator()(const char* key, std::vector<std::string>& member, DenseLayerTokens) {
    Reader& r = r_;
    fields_.push_back(
        {key, [&r, &member](const Node& v, const Path& p) { r.denseLayers(v, p, member); }});
  }

 private:
  Reader& r_;
  std::vector<Reader::Field> fields_;
};

}  // namespace

void readMetadata(Reader& r, const Node& node, const Path& path, ObjectMeta& m,
                  std::vector<Reader::Field> more) {
  std::vector<Reader::Field> fields = {
      {"name", [&](const Node& v, const Path& p) { r.string(v, p, m.name); }},
      {"namespace", [&](const Node& v, const Path& p) { r.string(v, p, m.namespace_); }},
      {"labels", [&](const Node& v, const Path& p) { r.stringMap(v, p, m.labels); }},
      {"annotations", [&](const Node& v, const Path& p) { r.stringMap(v, p, m.annotations); }},
  };
  fields.insert(fields.end(), std::make_move_iterator(more.begin()),
                std::make_move_iterator(more.end()));
  r.object(node, path, fields, Reader::UnknownFields::Ignore);
}

void readStoredMetadata(Reader& r, const Node& node, const Path& path, StoredObjectMeta& m) {
  readMetadata(
      r, node, path, m,
      {
          {"uid", [&](const Node& v, const Path& p) { r.string(v, p, m.uid); }},
          {"generation", [&](const Node& v, const Path& p) { r.integer(v, p, m.generation); }},
          {"creationTimestamp",
           [&](const Node& v, const Path& p) { r.string(v, p, m.creationTimestamp); }},
      });
}

namespace {

// Which optional parts a document spelled out: defaults that depend on the
// benchmark kind, and sections that belong to another kind.
struct Presence {
  bool parameterServers = false;
  bool hybridDDPRPC = false;
  bool ddp = false;
  bool collectives = false;
  bool fabric = false;
};

void readTopology(Reader& r, const Node& node, const Path& path, TopologySpec& t,
                  Presence& presence) {
  r.object(node, path,
           {
               {"trainers", [&](const Node& v, const Path& p) { r.integer(v, p, t.trainers); }},
               {"parameterServers",
                [&](const Node& v, const Path& p) {
                  presence.parameterServers = true;
                  r.integer(v, p, t.parameterServers);
                }},
           });
}

void readHybrid(Reader& r, const Node& node, const Path& path, HybridDDPRPCSpec& h) {
  TableFields fields(r);
  detail::hybridFields(h, fields);
  r.object(node, path, fields.fields());
}

void readDDP(Reader& r, const Node& node, const Path& path, DDPSpec& d) {
  TableFields fields(r);
  detail::ddpFields(d, fields);
  r.object(node, path, fields.fields());
}

void readCollectives(Reader& r, const Node& node, const Path& path, CollectivesSpec& c) {
  TableFields fields(r);
  detail::collectivesFields(c, fields);
  r.object(node, path, fields.fields());
}

void readFabric(Reader& r, const Node& node, const Path& path, FabricSpec& f) {
  TableFields fields(r);
  detail::fabricFields(f, fields);
  r.object(node, path, fields.fields());
}

void readBenchmark(Reader& r, const Node& node, const Path& path, BenchmarkSpec& b,
                   Presence& presence) {
  r.object(
      node, path,
      {
          {"kind",
           [&](const Node& v, const Path& p) {
             r.enumeration(v, p, b.kind,
                           {BenchmarkKind::HybridDDPRPC, BenchmarkKind::DDP,
                            BenchmarkKind::Collectives, BenchmarkKind::Fabric});
           }},
          {"seed", [&](const Node& v, const Path& p) { r.integer(v, p, b.seed); }},
          {"bucketCapMB", [&](const Node& v, const Path& p) { r.number(v, p, b.bucketCapMB); }},
          {"hybridDDPRPC",
           [&](const Node& v, const Path& p) {
             presence.hybridDDPRPC = true;
             readHybrid(r, v, p, b.hybridDDPRPC);
           }},
          {"ddp",
           [&](const Node& v, const Path& p) {
             presence.ddp = true;
             readDDP(r, v, p, b.ddp);
           }},
          {"collectives",
           [&](const Node& v, const Path& p) {
             presence.collectives = true;
             readCollectives(r, v, p, b.collectives);
           }},
          {"fabric",
           [&](const Node& v, const Path& p) {
             presence.fabric = true;
             readFabric(r, v, p, b.fabric);
           }},
      });
}

// A section for another kind is almost always a mistake (a kind forgotten
// or mistyped), so it is an error rather than silently ignored.
void checkKindSections(Reader& r, const Path& benchmarkPath, const BenchmarkSpec& b,
                       const Presence& presence) {
  const struct {
    const char* key;
    bool present;
    BenchmarkKind kind;
  } sections[] = {{"hybridDDPRPC", presence.hybridDDPRPC, BenchmarkKind::HybridDDPRPC},
                  {"ddp", presence.ddp, BenchmarkKind::DDP},
                  {"collectives", presence.collectives, BenchmarkKind::Collectives},
                  {"fabric", presence.fabric, BenchmarkKind::Fabric}};
  for (const auto& section : sections) {
    if (section.present && section.kind != b.kind) {
      r.fail(childPath(benchmarkPath, section.key),
             std::string("only allowed when spec.benchmark.kind is ") + toString(section.kind) +
                 " (kind is " + toString(b.kind) + ")");
    }
  }
}

void readRuntime(Reader& r, const Node& node, const Path& path, RuntimeSpec& rt) {
  TableFields fields(r);
  detail::runtimeFields(rt, fields);
  r.object(node, path, fields.fields());
}

void readRunPolicy(Reader& r, const Node& node, const Path& path, RunPolicy& rp) {
  TableFields fields(r);
  detail::runPolicyFields(rp, fields);
  r.object(node, path, fields.fields());
}

void readToleration(Reader& r, const Node& node, const Path& path, Toleration& t) {
  r.object(
      node, path,
      {
          {"key", [&](const Node& v, const Path& p) { r.string(v, p, t.key); }},
          {"operator",
           [&](const Node& v, const Path& p) {
             r.stringEnumeration(v, p, t.operator_, {"Equal", "Exists"});
           }},
          {"value", [&](const Node& v, const Path& p) { r.string(v, p, t.value); }},
          {"effect",
           [&](const Node& v, const Path& p) {
             r.stringEnumeration(v, p, t.effect, {"NoSchedule", "PreferNoSchedule", "NoExecute"});
           }},
          {"tolerationSeconds",
           [&](const Node& v, const Path& p) { r.optionalInteger(v, p, t.tolerationSeconds); }},
      });
}

void readTolerations(Reader& r, const Node& node, const Path& path, std::vector<Toleration>& out) {
  if (!node.IsSequence()) return r.fail(path, "must be a list");
  std::vector<Toleration> tolerations(node.size());
  for (std::size_t i = 0; i < node.size(); ++i) {
    readToleration(r, node[i], indexPath(path, i), tolerations[i]);
  }
  out = std::move(tolerations);
}

void readSeccompProfile(Reader& r, const Node& node, const Path& path,
                        std::optional<SeccompProfile>& out) {
  SeccompProfile profile;
  r.object(node, path,
           {
               {"type",
                [&](const Node& v, const Path& p) {
                  r.stringEnumeration(v, p, profile.type,
                                      {"RuntimeDefault", "Localhost", "Unconfined"});
                }},
               {"localhostProfile",
                [&](const Node& v, const Path& p) { r.string(v, p, profile.localhostProfile); }},
           });
  out = profile;
}

void readPodSecurity(Reader& r, const Node& node, const Path& path, PodSecurityOverrides& o) {
  r.object(node, path,
           {
               {"runAsNonRoot",
                [&](const Node& v, const Path& p) { r.optionalBoolean(v, p, o.runAsNonRoot); }},
               {"runAsUser",
                [&](const Node& v, const Path& p) { r.optionalInteger(v, p, o.runAsUser); }},
               {"runAsGroup",
                [&](const Node& v, const Path& p) { r.optionalInteger(v, p, o.runAsGroup); }},
               {"fsGroup", [&](const Node& v, const Path& p) { r.optionalInteger(v, p, o.fsGroup); }},
               {"seccompProfile",
                [&](const Node& v, const Path& p) { readSeccompProfile(r, v, p, o.seccompProfile); }},
           });
}

void readOptionalStringList(Reader& r, const Node& node, const Path& path,
                            std::optional<std::vector<std::string>>& out) {
  std::vector<std::string> values;
  const std::size_t before = r.errorCount();
  r.stringList(node, path, values);
  if (r.errorCount() == before) out = std::move(values);
}

void readContainerSecurity(Reader& r, const Node& node, const Path& path,
                           ContainerSecurityOverrides& o) {
  r.object(node, path,
           {
               {"allowPrivilegeEscalation",
                [&](const Node& v, const Path& p) {
                  r.optionalBoolean(v, p, o.allowPrivilegeEscalation);
                }},
               {"readOnlyRootFilesystem",
                [&](const Node& v, const Path& p) {
                  r.optionalBoolean(v, p, o.readOnlyRootFilesystem);
                }},
               {"capabilities",
                [&](const Node& v, const Path& p) {
                  r.object(v, p,
                           {
                               {"add",
                                [&](const Node& c, const Path& cp) {
                                  readOptionalStringList(r, c, cp, o.capabilitiesAdd);
                                }},
                               {"drop",
                                [&](const Node& c, const Path& cp) {
                                  readOptionalStringList(r, c, cp, o.capabilitiesDrop);
                                }},
                           });
                }},
           });
}

void readPodTemplate(Reader& r, const Node& node, const Path& path, PodTemplate& t) {
  r.object(node, path,
           {
               {"image", [&](const Node& v, const Path& p) { r.string(v, p, t.image); }},
               {"resources",
                [&](const Node& v, const Path& p) {
                  r.object(
                      v, p,
                      {
                          {"requests", [&](const Node& q,
                                           const Path& qp) { r.quantityMap(q, qp, t.requests); }},
                          {"limits",
                           [&](const Node& q, const Path& qp) { r.quantityMap(q, qp, t.limits); }},
                      });
                }},
               {"nodeSelector",
                [&](const Node& v, const Path& p) {
                  r.stringMap(v, p, t.nodeSelector, /*nullIsEmpty=*/true);
                }},
               {"tolerations",
                [&](const Node& v, const Path& p) { readTolerations(r, v, p, t.tolerations); }},
               {"podSecurityContext",
                [&](const Node& v, const Path& p) {
                  readPodSecurity(r, v, p, t.podSecurityContext);
                }},
               {"securityContext",
                [&](const Node& v, const Path& p) {
                  readContainerSecurity(r, v, p, t.securityContext);
                }},
           });
}

void readPodTemplates(Reader& r, const Node& node, const Path& path, PodTemplates& t) {
  auto role = [&](PodTemplate& field) {
    return [&r, &field](const Node& v, const Path& p) { readPodTemplate(r, v, p, field); };
  };
  r.object(node, path,
           {
               {"master", role(t.master)},
               {"parameterServer", role(t.parameterServer)},
               {"trainer", role(t.trainer)},
           });
}

void readBaseline(Reader& r, const Node& node, const Path& path, std::optional<Baseline>& out) {
  Baseline b;
  r.object(node, path,
           {
               {"benchmark",
                [&](const Node& v, const Path& p) {
                  std::string name;
                  r.string(v, p, name);
                  b.benchmark = name;
                }},
               {"configMap",
                [&](const Node& v, const Path& p) {
                  ConfigMapKeyRef ref;
                  r.object(v, p,
                           {
                               {"name", [&](const Node& f, const Path& fp) {
                                  r.string(f, fp, ref.name);
                                }},
                               {"key", [&](const Node& f, const Path& fp) {
                                  r.string(f, fp, ref.key);
                                }},
                           });
                  b.configMap = ref;
                }},
               {"thresholdPercent",
                [&](const Node& v, const Path& p) { r.number(v, p, b.thresholdPercent); }},
           });
  out = b;
}

// spec.local (benchmark_spec.h). A latency-like field under links is refused
// with the reason, as --links refuses it, rather than as merely unknown.
void readLocalLinks(Reader& r, const Node& node, const Path& path, std::optional<LocalLinks>& out) {
  LocalLinks links;
  std::vector<Reader::Field> fields = {
      {"bandwidth",
       [&](const Node& v, const Path& p) {
         std::string rate;
         r.intOrString(v, p, rate, "\"1gbit\"");
         links.bandwidth = rate;
       }},
      {"ranks",
       [&](const Node& v, const Path& p) { r.intOrStringMap(v, p, links.ranks, "\"100mbit\""); }},
      {"pairs",
       [&](const Node& v, const Path& p) { r.intOrStringMap(v, p, links.pairs, "\"50mbit\""); }},
  };
  for (const char* word : {"latency", "delay", "loss", "jitter", "rtt"}) {
    fields.push_back({word, [&r](const Node&, const Path& p) { r.fail(p, kNoLatencyReason); }});
  }
  r.object(node, path, fields);
  out = std::move(links);
}

void readLocalSlow(Reader& r, const Node& node, const Path& path,
                   std::map<std::string, LocalSlowRank>& out) {
  if (!node.IsMap()) return r.fail(path, "must be an object");
  for (const auto& entry : node) {
    if (!entry.first.IsScalar()) {
      r.fail(path, "keys must be strings");
      continue;
    }
    const std::string rankPath = childPath(path, entry.first.Scalar());
    if (out.count(entry.first.Scalar())) {
      r.fail(rankPath, "duplicate field");
      continue;
    }
    LocalSlowRank slow;
    bool sawCpu = false;
    r.object(entry.second, rankPath,
             {
                 {"cpu",
                  [&](const Node& v, const Path& p) {
                    sawCpu = true;
                    r.intOrString(v, p, slow.cpu, "\"50%\"");
                  }},
             });
    if (entry.second.IsMap() && !sawCpu) r.fail(childPath(rankPath, "cpu"), "required");
    out.emplace(entry.first.Scalar(), std::move(slow));
  }
}

void readLocal(Reader& r, const Node& node, const Path& path, std::optional<LocalSpec>& out) {
  LocalSpec local;
  r.object(node, path,
           {
               {"links",
                [&](const Node& v, const Path& p) { readLocalLinks(r, v, p, local.links); }},
               {"slow", [&](const Node& v, const Path& p) { readLocalSlow(r, v, p, local.slow); }},
           });
  out = std::move(local);
}

}  // namespace

void readSpec(Reader& r, const Node& node, const Path& path, DistBenchmarkSpec& s) {
  Presence presence;
  r.object(
      node, path,
      {
          {"topology",
           [&](const Node& v, const Path& p) { readTopology(r, v, p, s.topology, presence); }},
          {"benchmark",
           [&](const Node& v, const Path& p) { readBenchmark(r, v, p, s.benchmark, presence); }},
          {"runtime", [&](const Node& v, const Path& p) { readRuntime(r, v, p, s.runtime); }},
          {"runPolicy", [&](const Node& v, const Path& p) { readRunPolicy(r, v, p, s.runPolicy); }},
          {"podTemplates",
           [&](const Node& v, const Path& p) { readPodTemplates(r, v, p, s.podTemplates); }},
          {"baseline", [&](const Node& v, const Path& p) { readBaseline(r, v, p, s.baseline); }},
          {"local", [&](const Node& v, const Path& p) { readLocal(r, v, p, s.local); }},
      });
  checkKindSections(r, childPath(path, "benchmark"), s.benchmark, presence);
  // Only the hybrid benchmark has parameter servers.
  if (!presence.parameterServers && s.benchmark.kind != BenchmarkKind::HybridDDPRPC) {
    s.topology.parameterServers = 0;
  }
}

std::string describe(const YAML::Exception& e) {
  if (e.mark.is_null()) return e.msg;
  return "line " + std::to_string(e.mark.line + 1) + ", column " +
         std::to_string(e.mark.column + 1) + ": " + e.msg;
}

void appendValidationErrors(std::vector<FieldError>& errors, std::vector<FieldError> validation) {
  std::set<std::string> failed;
  for (const FieldError& e : errors) failed.insert(e.field);
  auto insideFailed = [&failed](const std::string& field) {
    for (const std::string& f : failed) {
      if (field.compare(0, f.size(), f) == 0 &&
          (field.size() == f.size() || field[f.size()] == '.' || field[f.size()] == '[')) {
        return true;
      }
    }
    return false;
  };
  for (FieldError& e : validation) {
    if (!insideFailed(e.field)) errors.push_back(std::move(e));
  }
}

}  // namespace distbench::api::detail
