// A TreeNode as block YAML: the worker's config file, `distbench render`.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <set>

#include "spec_tree.h"
#include "yaml_scalar.h"

namespace distbench::api::detail {
namespace {

// A string that a YAML reader would take for something else gets quotes.
// YAML 1.1's yes/no/on/off are included for readers older than ours.
bool needsQuotes(const std::string& s) {
  static const std::set<std::string> yaml11 = {"y",  "Y",   "yes", "Yes", "YES", "n",
                                               "N",  "no",  "No",  "NO",  "on",  "On",
                                               "ON", "off", "Off", "OFF"};
  return resolvePlainScalar(s) != ScalarType::String || yaml11.count(s) > 0;
}

void emitString(YAML::Emitter& out, const std::string& s) {
  if (needsQuotes(s)) out << YAML::DoubleQuoted;
  out << s;
}

// Empty collections and lists of scalars fit on one line; anything holding
// maps is easier to read as a block.
bool flow(const TreeNode& node) {
  const auto& children = node.children();
  if (children.empty()) return true;
  return node.kind() == TreeNode::Kind::Seq &&
         std::all_of(children.begin(), children.end(),
                     [](const TreeNode& child) { return child.isScalar(); });
}

void emit(YAML::Emitter& out, const TreeNode& node) {
  switch (node.kind()) {
    case TreeNode::Kind::Map:
      if (flow(node)) out << YAML::Flow;
      out << YAML::BeginMap;
      for (std::size_t i = 0; i < node.keys().size(); ++i) {
        out << YAML::Key;
        emitString(out, node.keys()[i]);
        out << YAML::Value;
        emit(out, node.children()[i]);
      }
      out << YAML::EndMap;
      break;
    case TreeNode::Kind::Seq:
      if (flow(node)) out << YAML::Flow;
      out << YAML::BeginSeq;
      for (const TreeNode& item : node.children()) emit(out, item);
      out << YAML::EndSeq;
      break;
    case TreeNode::Kind::String:
      emitString(out, node.text());
      break;
    case TreeNode::Kind::Integer:
      out << node.integerValue();
      break;
    case TreeNode::Kind::Number:
      // Unquoted: the shortest text that reads back as the same double.
      out << formatDouble(node.numberValue());
      break;
    case TreeNode::Kind::Bool:
      out << node.boolValue();
      break;
    case TreeNode::Kind::IntOrString:
      out << node.text();  // unquoted, so it reads back as an integer
      break;
  }
}

}  // namespace

std::string emitYaml(const TreeNode& root) {
  YAML::Emitter out;
  emit(out, root);
  return std::string(out.c_str()) + "\n";
}

}  // namespace distbench::api::detail
