#include "spec_tree.h"

#include <charconv>
#include <stdexcept>

namespace distbench::api::detail {

TreeNode TreeNode::string(std::string text) {
  TreeNode node(Kind::String);
  node.text_ = std::move(text);
  return node;
}

TreeNode TreeNode::integer(int64_t value) {
  TreeNode node(Kind::Integer);
  node.integer_ = value;
  return node;
}

TreeNode TreeNode::number(double value) {
  TreeNode node(Kind::Number);
  node.number_ = value;
  return node;
}

TreeNode TreeNode::boolean(bool value) {
  TreeNode node(Kind::Bool);
  node.bool_ = value;
  return node;
}

TreeNode TreeNode::intOrString(std::string text) {
  TreeNode node(Kind::IntOrString);
  node.text_ = std::move(text);
  return node;
}

TreeNode TreeNode::stringMap(const std::map<std::string, std::string>& map) {
  TreeNode node = TreeNode::map();
  for (const auto& [key, value] : map) node.add(key, string(value));
  return node;
}

TreeNode TreeNode::stringSeq(const std::vector<std::string>& list) {
  TreeNode node = seq();
  for (const std::string& s : list) node.push(string(s));
  return node;
}

TreeNode& TreeNode::add(std::string key, TreeNode value) {
  // A programming error, not bad input: the writers build every map.
  if (kind_ != Kind::Map) throw std::logic_error("TreeNode::add on a non-map");
  keys_.push_back(std::move(key));
  children_.push_back(std::move(value));
  return *this;
}

TreeNode& TreeNode::push(TreeNode item) {
  if (kind_ != Kind::Seq) throw std::logic_error("TreeNode::push on a non-sequence");
  children_.push_back(std::move(item));
  return *this;
}

std::string formatDouble(double value) {
  char buffer[32];
  return std::string(buffer, std::to_chars(buffer, buffer + sizeof buffer, value).ptr);
}

}  // namespace distbench::api::detail
