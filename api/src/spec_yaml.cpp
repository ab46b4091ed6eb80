// Reads a DistBenchmark document (and writes one through spec_to_tree.cpp).
// The sections made only of plain values (the three benchmark kinds,
// runtime, runPolicy) are read through the field tables in spec_fields.h,
// which the writer shares. The rest are read by hand here and written by
// hand there, because each has something a table of key and member would
// have to grow a special case for: topology's parameterServers changes a
// default when absent, the benchmark section checks which kind section is
// present, metadata ignores unknown fields, and the Kubernetes-shaped parts
// (tolerations, security contexts, resources, baseline) are written only in
// some combinations and read into optionals or lists of objects.
#include "distbench/api/spec_yaml.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "distbench/api/dense_layers.h"
#include "distbench/api/local_spec.h"
#include "distbench/api/spec_error.h"
#include "distbench/api/spec_validation.h"
#include "spec_fields.h"
#include "spec_tree.h"
#include "yaml_scalar.h"

namespace distbench::api {
namespace {

constexpr const char* kDocument = "<document>";

// --- Scalar resolution -------------------------------------------------------
// yaml-cpp hands back every scalar as text, so typing is ours (yaml_scalar.h):
// a quoted scalar is always a string, a plain one resolves by its text.

using detail::ScalarType;

ScalarType resolve(const YAML::Node& node) {
  // yaml-cpp tags quoted and block scalars "!" and plain ones "?"; an explicit
  // !!str forces a string too.
  const std::string& tag = node.Tag();
  if (tag == "!" || tag == "tag:yaml.org,2002:str") return ScalarType::String;
  return detail::resolvePlainScalar(node.Scalar());
}

bool isString(const YAML::Node& node) {
  return node.IsScalar() && resolve(node) == ScalarType::String;
}

// --- Reading -------------------------------------------------------------------

std::string childPath(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string indexPath(const std::string& parent, std::size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

template <typename E>
std::string allowedValues(const std::vector<E>& values) {
  std::string list;
  for (E v : values) list += (list.empty() ? "" : ", ") + std::string(toString(v));
  return list;
}

// Reads into a DistBenchmark whose members already hold the defaults, so an
// absent or null field keeps its default. Errors are collected, not thrown, so
// one pass reports everything wrong with a document.
class Reader {
 public:
  using ReadField = std::function<void(const YAML::Node& value, const std::string& path)>;
  struct Field {
    const char* key;
    ReadField read;
  };
  // metadata belongs to Kubernetes and grows fields (uid, managedFields, ...)
  // that are not ours to police.
  enum class UnknownFields { Reject, Ignore };

  void fail(const std::string& path, std::string message) {
    errors_.push_back({path.empty() ? kDocument : path, std::move(message)});
  }
  std::vector<FieldError>& errors() { return errors_; }
  std::size_t errorCount() const { return errors_.size(); }

  void object(const YAML::Node& node, const std::string& path, const std::vector<Field>& fields,
              UnknownFields unknown = UnknownFields::Reject) {
    if (!node.IsMap()) return fail(path, "must be an object");
    std::set<std::string> seen;
    for (const auto& entry : node) {
      if (!entry.first.IsScalar()) {
        fail(path, "field names must be strings");
        continue;
      }
      const std::string& key = entry.first.Scalar();
      const std::string fieldPath = childPath(path, key);
      if (!seen.insert(key).second) {
        fail(fieldPath, "duplicate field");
        continue;
      }
      auto field =
          std::find_if(fields.begin(), fields.end(), [&](const Field& f) { return key == f.key; });
      if (field == fields.end()) {
        if (unknown == UnknownFields::Reject) fail(fieldPath, "unknown field");
      } else if (!entry.second.IsNull()) {
        field->read(entry.second, fieldPath);
      }
    }
  }

  template <typename Int>
  void integer(const YAML::Node& node, const std::string& path, Int& out) {
    if (!node.IsScalar() || resolve(node) != ScalarType::Integer) {
      return fail(path, "must be an integer");
    }
    std::string text = node.Scalar();
    if (text[0] == '+') text.erase(0, 1);  // from_chars takes '-' but not '+'
    Int value{};
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size()) {
      return fail(path, "must be an integer between " +
                            std::to_string(std::numeric_limits<Int>::min()) + " and " +
                            std::to_string(std::numeric_limits<Int>::max()));
    }
    out = value;
  }

  void number(const YAML::Node& node, const std::string& path, double& out) {
    const ScalarType type = node.IsScalar() ? resolve(node) : ScalarType::String;
    if (type != ScalarType::Integer && type != ScalarType::Float) {
      return fail(path, "must be a number");
    }
    std::string text = node.Scalar();
    if (text[0] == '+') text.erase(0, 1);
    double value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    // .inf and .nan resolve as YAML floats but from_chars does not read them;
    // JSON has neither, and no field here wants one.
    if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(value)) {
      return fail(path, "must be a finite number");
    }
    out = value;
  }

  void string(const YAML::Node& node, const std::string& path, std::string& out) {
    if (!isString(node)) return fail(path, "must be a string");
    out = node.Scalar();
  }

  // An optional integer: set only when given (null leaves it unset).
  template <typename Int>
  void optionalInteger(const YAML::Node& node, const std::string& path, std::optional<Int>& out) {
    Int value = 0;
    const std::size_t errorsBefore = errors_.size();
    integer(node, path, value);
    if (errors_.size() == errorsBefore) out = value;
  }

  // An optional boolean: set only when given (null leaves it unset).
  void optionalBoolean(const YAML::Node& node, const std::string& path, std::optional<bool>& out) {
    if (!node.IsScalar() || resolve(node) != ScalarType::Bool) {
      return fail(path, "must be true or false");
    }
    const char c = node.Scalar()[0];
    out = c == 't' || c == 'T';
  }

  // A string enum kept as a string (Kubernetes' own fields: a toleration's
  // operator and effect).
  void stringEnumeration(const YAML::Node& node, const std::string& path, std::string& out,
                         std::initializer_list<const char*> values) {
    if (isString(node)) {
      for (const char* v : values) {
        if (node.Scalar() == v) {
          out = v;
          return;
        }
      }
    }
    std::string list;
    for (const char* v : values) list += (list.empty() ? "" : ", ") + std::string(v);
    fail(path, "must be one of " + list);
  }

  template <typename E>
  void enumeration(const YAML::Node& node, const std::string& path, E& out,
                   const std::vector<E>& values) {
    if (isString(node)) {
      for (E v : values) {
        if (node.Scalar() == toString(v)) {
          out = v;
          return;
        }
      }
    }
    fail(path, "must be one of " + allowedValues(values));
  }

  // Strings, or integers (YAML `[256, 128, ReLU]`) kept as written.
  void denseLayers(const YAML::Node& node, const std::string& path, std::vector<std::string>& out) {
    if (!node.IsSequence()) return fail(path, "must be a list");
    std::vector<std::string> tokens;
    bool ok = true;
    for (std::size_t i = 0; i < node.size(); ++i) {
      const YAML::Node item = node[i];
      const ScalarType type = item.IsScalar() ? resolve(item) : ScalarType::Null;
      if (type == ScalarType::String || type == ScalarType::Integer) {
        tokens.push_back(item.Scalar());
      } else {
        fail(indexPath(path, i), "must be a string or an integer");
        ok = false;
      }
    }
    if (ok) out = std::move(tokens);
  }

  void stringList(const YAML::Node& node, const std::string& path, std::vector<std::string>& out) {
    if (!node.IsSequence()) return fail(path, "must be a list");
    std::vector<std::string> values;
    bool ok = true;
    for (std::size_t i = 0; i < node.size(); ++i) {
      if (!isString(node[i])) {
        fail(indexPath(path, i), "must be a string");
        ok = false;
      } else {
        values.push_back(node[i].Scalar());
      }
    }
    if (ok) out = std::move(values);
  }

  template <typename E>
  void enumerationList(const YAML::Node& node, const std::string& path, std::vector<E>& out,
                       const std::vector<E>& values) {
    if (!node.IsSequence()) return fail(path, "must be a list");
    std::vector<E> items;
    const std::size_t errorsBefore = errors_.size();
    for (std::size_t i = 0; i < node.size(); ++i) {
      E item{};
      enumeration(node[i], indexPath(path, i), item, values);
      items.push_back(item);
    }
    if (errors_.size() == errorsBefore) out = std::move(items);
  }

  // `nullIsEmpty`: a null value reads as "", as Go decodes one into a
  // map[string]string (a pod's nodeSelector).
  void stringMap(const YAML::Node& node, const std::string& path,
                 std::map<std::string, std::string>& out, bool nullIsEmpty = false) {
    textMap(node, path, out, [&](const YAML::Node& v, const std::string& valuePath,
                                 std::string& text) {
      if (nullIsEmpty && v.IsNull()) return true;
      if (!isString(v)) return fail(valuePath, "must be a string"), false;
      text = v.Scalar();
      return true;
    });
  }

  // A string, or an integer kept as its text: what the CRD's int-or-string
  // takes (spec.local's rates and caps). `example` says what to write.
  void intOrString(const YAML::Node& node, const std::string& path, std::string& out,
                   const std::string& example) {
    readIntOrString(node, path, out, example);
  }
  void intOrStringMap(const YAML::Node& node, const std::string& path,
                      std::map<std::string, std::string>& out, const std::string& example) {
    textMap(node, path, out, [&](const YAML::Node& v, const std::string& valuePath,
                                 std::string& text) {
      return readIntOrString(v, valuePath, text, example);
    });
  }

  // Resource quantities: name -> quantity. As in core/v1, a quantity may be
  // written as a string ("500m", "4Gi") or an integer (cpu: 2); either is kept
  // as its text. Decimals must be quoted: the CRD's int-or-string schema
  // refuses a JSON float. The grammar is validation's.
  void quantityMap(const YAML::Node& node, const std::string& path,
                   std::map<std::string, std::string>& out) {
    textMap(node, path, out, [&](const YAML::Node& v, const std::string& valuePath,
                                 std::string& text) {
      const ScalarType type = v.IsScalar() ? resolve(v) : ScalarType::Null;
      if (type != ScalarType::String && type != ScalarType::Integer)
        return fail(valuePath, "must be a quantity: a string such as \"500m\" or an integer"), false;
      text = v.Scalar();
      if (type == ScalarType::Integer && text[0] == '+') text.erase(0, 1);
      return true;
    });
  }

 private:
  bool readIntOrString(const YAML::Node& node, const std::string& path, std::string& out,
                       const std::string& example) {
    const ScalarType type = node.IsScalar() ? resolve(node) : ScalarType::Null;
    if (type != ScalarType::String && type != ScalarType::Integer) {
      fail(path, "must be a string such as " + example + " or an integer");
      return false;
    }
    out = node.Scalar();
    if (type == ScalarType::Integer && out[0] == '+') out.erase(0, 1);
    return true;
  }

  // An object of string keys whose values `read` turns into text (false: it
  // reported the error). `out` changes only when every entry is good.
  template <typename Read>
  void textMap(const YAML::Node& node, const std::string& path,
               std::map<std::string, std::string>& out, Read read) {
    if (!node.IsMap()) return fail(path, "must be an object");
    std::map<std::string, std::string> values;
    bool ok = true;
    for (const auto& entry : node) {
      if (!entry.first.IsScalar()) {
        fail(path, "keys must be strings");
        ok = false;
        continue;
      }
      const std::string valuePath = childPath(path, entry.first.Scalar());
      std::string text;
      if (!read(entry.second, valuePath, text)) {
        ok = false;
      } else if (!values.emplace(entry.first.Scalar(), std::move(text)).second) {
        fail(valuePath, "duplicate field");
        ok = false;
      }
    }
    if (ok) out = std::move(values);
  }

  std::vector<FieldError> errors_;
};

using Node = YAML::Node;
using Path = std::string;
using detail::DenseLayerTokens;
using detail::kIsOptional;

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
                         } else if constexpr (std::is_same_v<T, double>) {
                           r.number(v, p, member);
                         } else if constexpr (std::is_same_v<T, std::string>) {
                           r.string(v, p, member);
                         } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
                           r.stringList(v, p, member);
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

  void operator()(const char* key, std::vector<std::string>& member, DenseLayerTokens) {
    Reader& r = r_;
    fields_.push_back(
        {key, [&r, &member](const Node& v, const Path& p) { r.denseLayers(v, p, member); }});
  }

 private:
  Reader& r_;
  std::vector<Reader::Field> fields_;
};

void readMetadata(Reader& r, const Node& node, const Path& path, ObjectMeta& m) {
  r.object(
      node, path,
      {
          {"name", [&](const Node& v, const Path& p) { r.string(v, p, m.name); }},
          {"namespace", [&](const Node& v, const Path& p) { r.string(v, p, m.namespace_); }},
          {"labels", [&](const Node& v, const Path& p) { r.stringMap(v, p, m.labels); }},
          {"annotations", [&](const Node& v, const Path& p) { r.stringMap(v, p, m.annotations); }},
      },
      Reader::UnknownFields::Ignore);
}

// Which optional parts a document spelled out: defaults that depend on the
// benchmark kind, and sections that belong to another kind.
struct Presence {
  bool parameterServers = false;
  bool hybridDDPRPC = false;
  bool ddp = false;
  bool collectives = false;
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

void readBenchmark(Reader& r, const Node& node, const Path& path, BenchmarkSpec& b,
                   Presence& presence) {
  r.object(
      node, path,
      {
          {"kind",
           [&](const Node& v, const Path& p) {
             r.enumeration(
                 v, p, b.kind,
                 {BenchmarkKind::HybridDDPRPC, BenchmarkKind::DDP, BenchmarkKind::Collectives});
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
      });
}

// A section for another kind is almost always a mistake (a kind forgotten
// or mistyped), so it is an error rather than silently ignored.
void checkKindSections(Reader& r, const BenchmarkSpec& b, const Presence& presence) {
  const struct {
    const char* key;
    bool present;
    BenchmarkKind kind;
  } sections[] = {{"hybridDDPRPC", presence.hybridDDPRPC, BenchmarkKind::HybridDDPRPC},
                  {"ddp", presence.ddp, BenchmarkKind::DDP},
                  {"collectives", presence.collectives, BenchmarkKind::Collectives}};
  for (const auto& section : sections) {
    if (section.present && section.kind != b.kind) {
      r.fail(std::string("spec.benchmark.") + section.key,
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
  checkKindSections(r, s.benchmark, presence);
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

DistBenchmark parseDocument(const std::string& text, const std::string& documentName) {
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    throw SpecError({{documentName, describe(e)}});
  }
  if (documents.size() != 1) {
    throw SpecError({{documentName, "expected one DistBenchmark document, found " +
                                        std::to_string(documents.size())}});
  }
  const YAML::Node& root = documents.front();
  if (!root.IsMap()) throw SpecError({{documentName, "must be a DistBenchmark object"}});

  DistBenchmark benchmark;
  Reader r;
  bool sawApiVersion = false;
  bool sawKind = false;
  r.object(root, "",
           {
               {"apiVersion",
                [&](const Node& v, const Path& p) {
                  sawApiVersion = true;
                  r.string(v, p, benchmark.apiVersion);
                }},
               {"kind",
                [&](const Node& v, const Path& p) {
                  sawKind = true;
                  r.string(v, p, benchmark.kind);
                }},
               {"metadata",
                [&](const Node& v, const Path& p) { readMetadata(r, v, p, benchmark.metadata); }},
               {"spec", [&](const Node& v, const Path& p) { readSpec(r, v, p, benchmark.spec); }},
               // Written by the operator; what the API server returns carries it.
               {"status", [](const Node&, const Path&) {}},
           });
  if (!sawApiVersion) r.fail("apiVersion", "required");
  if (!sawKind) r.fail("kind", "required");

  // Validate what did parse; a field that failed to parse still holds its
  // default, so skip validation's opinion of it, or of anything inside it
  // (a list item that was not an object), rather than report it twice.
  std::vector<FieldError>& errors = r.errors();
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
  for (FieldError& e : validate(benchmark)) {
    if (!insideFailed(e.field)) errors.push_back(std::move(e));
  }
  for (FieldError& e : errors) {
    if (e.field == kDocument) e.field = documentName;
  }
  if (!errors.empty()) throw SpecError(std::move(errors));
  return benchmark;
}

}  // namespace

DistBenchmark parseDistBenchmark(const std::string& yamlText) {
  return parseDocument(yamlText, kDocument);
}

DistBenchmark loadDistBenchmarkFile(const std::string& path) {
  auto fail = [&path]() {
    return std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
  };
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                       &std::fclose);
  if (!file) throw fail();
  std::string text;
  char buffer[65536];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) text.append(buffer, n);
  if (std::ferror(file.get())) throw fail();  // e.g. EISDIR: fopen accepts a directory
  return parseDocument(text, path);
}

// Both writers go through one tree, so they cannot carry different fields.
std::string toYaml(const DistBenchmark& b) { return detail::emitYaml(detail::specToTree(b)); }

std::string toJson(const DistBenchmark& b) { return detail::emitJson(detail::specToTree(b)); }

}  // namespace distbench::api
