// What the schema tests of the CRDs derived from DistBenchmark's share
// (schedule_crd_schema_test.cpp, preflight_crd_schema_test.cpp): walking a
// schema's leaves, setting a field of a document by its dotted path, and
// comparing two schemas as data.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace distbench::api::test {

inline YAML::Node rootSchema(const YAML::Node& crd) {
  return crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
}

// Leaves of `schema` by dotted path; a path in `whole` is one leaf, not
// descended into (a template's DistBenchmark spec, checked whole).
inline void schemaLeaves(const YAML::Node& schema, const std::string& path,
                         const std::vector<std::string>& whole,
                         std::map<std::string, YAML::Node>& out) {
  const YAML::Node properties = schema["properties"];
  bool isWhole = false;
  for (const std::string& w : whole) isWhole = isWhole || w == path;
  if (!properties || isWhole) {
    out[path] = schema;
    return;
  }
  for (const auto& p : properties) {
    schemaLeaves(p.second, path.empty() ? p.first.Scalar() : path + "." + p.first.Scalar(), whole,
                 out);
  }
}

// `doc[path] = YAML value`, creating the maps on the way.
inline void setAtPath(YAML::Node doc, const std::string& path, const std::string& value) {
  std::size_t start = 0;
  std::vector<std::string> keys;
  for (std::size_t dot = path.find('.'); dot != std::string::npos; dot = path.find('.', start)) {
    keys.push_back(path.substr(start, dot - start));
    start = dot + 1;
  }
  const std::string last = path.substr(start);
  std::function<void(YAML::Node, std::size_t)> set = [&](YAML::Node node, std::size_t i) {
    if (i == keys.size()) {
      node[last] = YAML::Load(value);
      return;
    }
    if (!node[keys[i]]) node[keys[i]] = YAML::Node(YAML::NodeType::Map);
    set(node[keys[i]], i + 1);
  };
  set(doc, 0);
}

// Equal as data: the same maps, lists and scalar texts, whatever their
// style; `where` names the first difference.
inline bool sameData(const YAML::Node& a, const YAML::Node& b, const std::string& path,
                     std::string& where) {
  if (a.Type() != b.Type()) return where = path, false;
  if (a.IsScalar()) return a.Scalar() == b.Scalar() || (where = path, false);
  if (a.size() != b.size()) return where = path, false;
  if (a.IsSequence()) {
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!sameData(a[i], b[i], path + "[" + std::to_string(i) + "]", where)) return false;
    }
    return true;
  }
  for (const auto& entry : a) {
    const std::string key = entry.first.Scalar();
    if (!b[key]) return where = path + "." + key, false;
    if (!sameData(entry.second, b[key], path + "." + key, where)) return false;
  }
  return true;
}

}  // namespace distbench::api::test
