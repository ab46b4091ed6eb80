// A neutral document tree between a DistBenchmark and its text. toYaml and
// toJson both write the spec into one tree (specToTree) and only then pick a
// syntax, so the two cannot carry different fields. Internal to
// distbench_api.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "distbench/api/benchmark_spec.h"

namespace distbench::api::detail {

class TreeNode {
 public:
  enum class Kind {
    Map,  // keys in the order written
    Seq,
    String,
    Integer,
    Number,  // a double
    Bool,
    // A list entry the schema takes as integer or string (a dense layer's
    // width): YAML writes it bare, as people write the list; JSON keeps the
    // string.
    IntOrString,
  };

  static TreeNode map() { return TreeNode(Kind::Map); }
  static TreeNode seq() { return TreeNode(Kind::Seq); }
  static TreeNode string(std::string text);
  static TreeNode integer(int64_t value);
  static TreeNode number(double value);
  static TreeNode boolean(bool value);
  static TreeNode intOrString(std::string text);
  static TreeNode stringMap(const std::map<std::string, std::string>& map);
  static TreeNode stringSeq(const std::vector<std::string>& list);

  // Map: appends key: value. Returns *this, so fields chain.
  TreeNode& add(std::string key, TreeNode value);
  // Seq: appends an item.
  TreeNode& push(TreeNode item);

  Kind kind() const { return kind_; }
  const std::string& text() const { return text_; }  // String, IntOrString
  int64_t integerValue() const { return integer_; }
  double numberValue() const { return number_; }
  bool boolValue() const { return bool_; }
  const std::vector<std::string>& keys() const { return keys_; }       // Map
  const std::vector<TreeNode>& children() const { return children_; }  // Map values, Seq items
  bool isScalar() const { return kind_ != Kind::Map && kind_ != Kind::Seq; }

 private:
  explicit TreeNode(Kind kind) : kind_(kind) {}

  Kind kind_;
  std::string text_;
  int64_t integer_ = 0;
  double number_ = 0;
  bool bool_ = false;
  std::vector<std::string> keys_;
  std::vector<TreeNode> children_;
};

// Every field, defaults included; optional fields only when set, and only
// the benchmark section of the spec's kind.
TreeNode specToTree(const DistBenchmark& benchmark);

// Block YAML (flow for empty collections and lists of scalars), strings
// quoted only where they would read back as something else. Ends in "\n".
std::string emitYaml(const TreeNode& root);
// One compact JSON object.
std::string emitJson(const TreeNode& root);

// Shortest text that reads back as the same double (at most 24 characters).
std::string formatDouble(double value);

}  // namespace distbench::api::detail
