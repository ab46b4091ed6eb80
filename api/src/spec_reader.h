// The strict reader of DistBenchmark documents, shared by the readers of
// the resources that hold a DistBenchmark spec (spec_yaml.cpp for
// DistBenchmark itself, schedule_yaml.cpp for DistBenchmarkSchedule's
// template). Internal to distbench_api.
#pragma once

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "distbench/api/spec_error.h"
#include "yaml_scalar.h"

namespace distbench::api::detail {

// The field name of errors about the document as a whole.
inline constexpr const char* kDocument = "<document>";

// --- Scalar resolution -------------------------------------------------------
// yaml-cpp hands back every scalar as text, so typing is ours (yaml_scalar.h):
// a quoted scalar is always a string, a plain one resolves by its text.

inline ScalarType resolve(const YAML::Node& node) {
  // yaml-cpp tags quoted and block scalars "!" and plain ones "?"; an explicit
  // !!str forces a string too.
  const std::string& tag = node.Tag();
  if (tag == "!" || tag == "tag:yaml.org,2002:str") return ScalarType::String;
  return resolvePlainScalar(node.Scalar());
}

inline bool isString(const YAML::Node& node) {
  return node.IsScalar() && resolve(node) == ScalarType::String;
}

// --- Reading -------------------------------------------------------------------

inline std::string childPath(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

inline std::string indexPath(const std::string& parent, std::size_t index) {
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

  void boolean(const YAML::Node& node, const std::string& path, bool& out) {
    std::optional<bool> value;
    optionalBoolean(node, path, value);
    if (value) out = *value;
  }

  void integerList(const YAML::Node& node, const std::string& path, std::vector<int64_t>& out) {
    if (!node.IsSequence()) return fail(path, "must be a list");
    std::vector<int64_t> values(node.size());
    const std::size_t errorsBefore = errors_.size();
    for (std::size_t i = 0; i < node.size(); ++i) integer(node[i], indexPath(path, i), values[i]);
    if (errors_.size() == errorsBefore) out = std::move(values);
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

// metadata's name, namespace, labels and annotations, and the `more` fields
// a resource keeps besides (a schedule's uid); other metadata fields
// (Kubernetes') are ignored.
void readMetadata(Reader& r, const YAML::Node& node, const std::string& path, ObjectMeta& m,
                  std::vector<Reader::Field> more = {});
// readMetadata with the fields a controller keeps besides (uid,
// generation, creationTimestamp).
void readStoredMetadata(Reader& r, const YAML::Node& node, const std::string& path,
                        StoredObjectMeta& m);
// A DistBenchmark spec at `path` ("spec", "spec.template.spec").
void readSpec(Reader& r, const YAML::Node& node, const std::string& path, DistBenchmarkSpec& s);
// A YAML exception with its line and column.
std::string describe(const YAML::Exception& e);
// Appends validation's errors to the reader's, except those about a field
// that failed to parse (it holds its default), or anything inside it, which
// would report one mistake twice.
void appendValidationErrors(std::vector<FieldError>& errors, std::vector<FieldError> validation);

}  // namespace distbench::api::detail
