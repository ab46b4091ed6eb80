// A TreeNode as one compact JSON object: API server requests, reports.
#include <cmath>
#include <cstdio>

#include "spec_tree.h"

namespace distbench::api::detail {
namespace {

std::string jsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escape[7];
          std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned char>(c));
          out += escape;
        } else {
          out += c;  // UTF-8 passes through: JSON text is UTF-8
        }
    }
  }
  return out + "\"";
}

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
