// A TreeNode as one compact JSON object: API server requests, reports.
#include <cmath>
#include <cstdio>

#include "distbench/api/json_string.h"
#include "spec_tree.h"

namespace distbench::api::detail {
namespace {

// JSON has no NaN or infinity; null at least keeps the document parseable.
std::string jsonNumber(double value) { return std::isfinite(value) ? formatDouble(value) : "null"; }

void emit(std::string& out, const TreeNode& node) {
  switch (node.kind()) {
    case TreeNode::Kind::Map:
      out += '{';
      for (std::size_t i = 0; i < node.keys().size(); ++i) {
        if (i > 0) out += ',';
        out += jsonString(node.keys()[i]);
        out += ':';
        emit(out, node.children()[i]);
      }
      out += '}';
      break;
    case TreeNode::Kind::Seq:
      out += '[';
      for (std::size_t i = 0; i < node.children().size(); ++i) {
        if (i > 0) out += ',';
        emit(out, node.children()[i]);
      }
      out += ']';
      break;
    case TreeNode::Kind::String:
    case TreeNode::Kind::IntOrString:  // the schema accepts the string form
      out += jsonString(node.text());
      break;
    case TreeNode::Kind::Integer:
      out += std::to_string(node.integerValue());
      break;
    case TreeNode::Kind::Number:
      out += jsonNumber(node.numberValue());
      break;
    case TreeNode::Kind::Bool:
      out += node.boolValue() ? "true" : "false";
      break;
  }
}

}  // namespace

std::string emitJson(const TreeNode& root) {
  std::string out;
  emit(out, root);
  return out;
}

}  // namespace distbench::api::detail
