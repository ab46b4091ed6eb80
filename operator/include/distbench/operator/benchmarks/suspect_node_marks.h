// What the operator does to a Kubernetes node the Fabric verdict found
// slow, where the operator is told to (--suspect-nodes, the chart's
// fabric.suspectNodes): nothing (the default: a benchmark must not change
// the cluster it measures unless asked), a label that schedulers and people
// can select on, or a NoSchedule taint that keeps new pods off it until
// someone looks. Either way an annotation says which benchmark named it and
// why. Marks are only added: removing one is a person's decision, after the
// node is fixed (docs/fabric.md says how).
#pragma once

#include <cpprest/json.h>

#include <optional>
#include <string>

#include "distbench/kube/kube_client.h"
#include "distbench/operator/benchmarks/fabric_suspects.h"

namespace distbench::op {

enum class SuspectNodeAction { None, Label, Taint };
// "none" | "label" | "taint"; nullopt for anything else.
std::optional<SuspectNodeAction> parseSuspectNodeAction(const std::string& text);
const char* toString(SuspectNodeAction action);

// The label and taint key; its value is what was slow ("node", "compute").
inline constexpr const char* kSuspectNodeKey = "distbench.io/suspect";
// Which benchmark named the node ("<namespace>/<name>") and its evidence.
inline constexpr const char* kSuspectByAnnotation = "distbench.io/suspect-by";

// The merge patch for `node` (as the API returns it): the label or the
// taint (added to the node's own taints, with its resourceVersion as a
// precondition, so a taint written meanwhile by someone else is not lost:
// the patch then fails with 409 and is made again), and the annotation.
// nullopt when the node already carries the mark: nothing to write.
std::optional<web::json::value> suspectNodePatch(const web::json::value& node,
                                                 const SuspectNodeMark& mark,
                                                 SuspectNodeAction action,
                                                 const std::string& benchmark);

// Reads the node and patches it, again on a conflict (at most 3 tries).
// Returns "" when marked (or already marked), else why not, for an Event;
// a node that is gone is not an error worth retrying the reconcile for.
std::string markSuspectNode(kube::KubeClient& client, const SuspectNodeMark& mark,
                            SuspectNodeAction action, const std::string& benchmark);

}  // namespace distbench::op
