#include "distbench/operator/benchmarks/suspect_node_marks.h"

#include "distbench/kube/bounded_message.h"
#include "distbench/kube/json_fields.h"

namespace distbench::op {

using web::json::value;

std::optional<SuspectNodeAction> parseSuspectNodeAction(const std::string& text) {
  if (text == "none") return SuspectNodeAction::None;
  if (text == "label") return SuspectNodeAction::Label;
  if (text == "taint") return SuspectNodeAction::Taint;
  return std::nullopt;
}

const char* toString(SuspectNodeAction action) {
  switch (action) {
    case SuspectNodeAction::None:
      return "none";
    case SuspectNodeAction::Label:
      return "label";
    case SuspectNodeAction::Taint:
      return "taint";
  }
  return "none";
}

namespace {

bool hasOurTaint(const value& node) {
  if (!node.has_field("spec") || !node.at("spec").has_field("taints")) return false;
  const value& taints = node.at("spec").at("taints");
  if (!taints.is_array()) return false;
  for (const value& t : taints.as_array())
    if (t.is_object() && t.has_field("key") && t.at("key").is_string() &&
        t.at("key").as_string() == kSuspectNodeKey)
      return true;
  return false;
}

}  // namespace

std::optional<value> suspectNodePatch(const value& node, const SuspectNodeMark& mark,
                                      SuspectNodeAction action, const std::string& benchmark) {
  if (action == SuspectNodeAction::None) return std::nullopt;
  value patch = value::object();
  if (action == SuspectNodeAction::Label) {
    const value* metadata = kube::fieldOf(node, "metadata");
    const value* labels = metadata != nullptr ? kube::fieldOf(*metadata, "labels") : nullptr;
    if (labels != nullptr && kube::stringField(*labels, kSuspectNodeKey) == mark.what)
      return std::nullopt;
    patch["metadata"]["labels"][kSuspectNodeKey] = value::string(mark.what);
  } else {
    if (hasOurTaint(node)) return std::nullopt;
    std::vector<value> taints;
    if (node.has_field("spec") && node.at("spec").has_field("taints") &&
        node.at("spec").at("taints").is_array())
      for (const value& t : node.at("spec").at("taints").as_array()) taints.push_back(t);
    value taint = value::object();
    taint["key"] = value::string(kSuspectNodeKey);
    taint["value"] = value::string(mark.what);
    taint["effect"] = value::string("NoSchedule");
    taints.push_back(taint);
    patch["spec"]["taints"] = value::array(taints);
    // A merge patch replaces the list: only over the version it was read from.
    patch["metadata"]["resourceVersion"] =
        value::string(kube::stringField(node, "metadata", "resourceVersion"));
  }
  patch["metadata"]["annotations"][kSuspectByAnnotation] =
      value::string(kube::boundedMessage(benchmark + ": " + mark.evidence, 512));
  return patch;
}

std::string markSuspectNode(kube::KubeClient& client, const SuspectNodeMark& mark,
                            SuspectNodeAction action, const std::string& benchmark) {
  const std::string path = "/api/v1/nodes/" + mark.node;
  for (int attempt = 0; attempt < 3; ++attempt) {
    try {
      const value node = client.get(path);
      const std::optional<value> patch = suspectNodePatch(node, mark, action, benchmark);
      if (!patch) return "";
      client.mergePatch(path, *patch);
      return "";
    } catch (const kube::KubeApiError& e) {
      if (e.notFound()) return "node " + mark.node + " is gone";
      if (e.conflict()) continue;
      if (e.refused()) return "the API server refused to mark node " + mark.node + ": " + e.what();
      throw;
    }
  }
  return "node " + mark.node + " changed under three attempts to mark it";
}

}  // namespace distbench::op
