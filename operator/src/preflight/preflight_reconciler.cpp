#include "distbench/operator/preflight/preflight_reconciler.h"

#include <algorithm>
#include <set>

#include "distbench/kube/json_fields.h"
#include "distbench/operator/benchmarks/suspect_node_marks.h"
#include "distbench/operator/common/benchmark_object.h"
#include "distbench/operator/preflight/admission_check_policy.h"

namespace distbench::op {
namespace {

using kube::fieldOf;
using kube::stringField;
using web::json::value;

// The Workload owns its check's runs: deleting it deletes them.
value workloadOwnerReference(const WorkloadView& w) {
  value ref = value::object();
  ref["apiVersion"] = value::string("kueue.x-k8s.io/v1beta1");
  ref["kind"] = value::string("Workload");
  ref["name"] = value::string(w.name);
  ref["uid"] = value::string(w.uid);
  ref["controller"] = value::boolean(true);
  return ref;
}

int64_t ageSeconds(const value& object, kube::SystemTime now) {
  const std::optional<kube::SystemTime> created =
      kube::parseRfc3339(kube::metadataField(object, "creationTimestamp"));
  if (!created) return 0;
  return std::max<int64_t>(
      0, std::chrono::duration_cast<std::chrono::seconds>(now - *created).count());
}

const char* eventReason(const std::string& state) {
  if (state == "Ready") return "PreflightPassed";
  if (state == "Retry") return "PreflightRetry";
  return "PreflightRejected";
}

}  // namespace

PreflightReconciler::PreflightReconciler(kube::KubeClient& client,
                                         const kube::Informer& admissionChecks,
                                         const kube::Informer& policies,
                                         const kube::Informer& runs,
                                         PreflightReconcilerOptions options)
    : client_(client),
      admissionChecks_(admissionChecks),
      policies_(policies),
      runs_(runs),
      options_(std::move(options)) {}

kube::Result PreflightReconciler::reconcile(const std::string& key) {
  const auto [ns, name] = kube::splitKey(key);
  value workload;
  try {
    workload = client_.get(kueueWorkloadsPath(ns, name));  // fresh: the answer rests on it
  } catch (const kube::KubeApiError& e) {
    if (!e.notFound()) throw;
    // Its runs go with it where a garbage collector runs; here too where
    // none does.
    deleteRunsOfGone(ns, name);
    return kube::Result::awaitChange();
  }
  const WorkloadView view = readWorkload(workload);
  kube::Result result = kube::Result::awaitChange();
  for (const AdmissionCheckEntry& entry : view.checks) {
    const std::optional<value> check = admissionChecks_.get(entry.name);
    if (!check || !isPreflightCheck(*check)) continue;
    const kube::Result r = reconcileCheck(workload, view, entry.name, *check);
    if (r.requeue) result.requeue = true;
    if (r.requeueAfter.count() > 0 &&
        (result.requeueAfter.count() == 0 || r.requeueAfter < result.requeueAfter)) {
      result.requeueAfter = r.requeueAfter;
    }
  }
  return result;
}

kube::Result PreflightReconciler::reconcileCheck(const value& workload, const WorkloadView& view,
                                                 const std::string& checkName,
                                                 const value& admissionCheck) {
  std::optional<api::DistBenchPreflightPolicy> policy;
  std::optional<value> run;
  const PreflightInputs in = observe(workload, view, checkName, admissionCheck, policy, run);
  const PreflightPlan plan = planPreflight(in);
  switch (plan.step) {
    case PreflightStep::Ignore:
      // Evicted, deactivated, answered, or reset for another attempt: no
      // run of this check is needed any more.
      deleteRuns(view, checkName, "");
      return kube::Result::awaitChange();
    case PreflightStep::CreateRun: {
      deleteRuns(view, checkName, api::preflightRunName(plan.target));
      const std::string refused = createRun(workload, *policy, plan);
      if (!refused.empty()) return answer(workload, in, planRunRefused(in, refused), std::nullopt);
      return kube::Result::after(std::chrono::seconds(plan.recheckAfterSeconds.value_or(60)));
    }
    case PreflightStep::Wait:
      return kube::Result::after(std::chrono::seconds(plan.recheckAfterSeconds.value_or(60)));
    case PreflightStep::Answer:
      return answer(workload, in, plan, run);
  }
  return kube::Result::awaitChange();
}

PreflightInputs PreflightReconciler::observe(const value& workload, const WorkloadView& view,
                                             const std::string& checkName,
                                             const value& admissionCheck,
                                             std::optional<api::DistBenchPreflightPolicy>& policy,
                                             std::optional<value>& run) {
  PreflightInputs in;
  in.workload = view;
  in.check = checkName;
  CheckPolicy found = checkPolicy(admissionCheck, [this](const std::string& name) {
    return policies_.get(name);
  });
  policy = std::move(found.policy);
  in.policy = policy ? &*policy : nullptr;
  in.policyError = found.error;
  if (!mayAnswer(view, checkName) || !policy) return in;
  in.assigned = assignedNodes(workload);
  resolveNodes(in);
  const AdmissionCheckEntry* entry = findCheck(view, checkName);
  const std::string runName = api::preflightRunName(
      preflightTarget(view, checkName, static_cast<int>(entry->retryCount) + 1));
  run = runs_.get(view.namespace_ + "/" + runName);
  if (run) {
    in.run = readCheckRunVerdict(*run);
    in.runAgeSeconds = ageSeconds(*run, options_.now());
  }
  return in;
}

void PreflightReconciler::resolveNodes(PreflightInputs& in) {
  if (in.assigned.hostnames.empty()) return;
  std::string values;
  for (const std::string& h : in.assigned.hostnames) values += (values.empty() ? "" : ",") + h;
  const value list = client_.get(kube::corePath("", "nodes") + "?labelSelector=" +
                                 kube::queryEscape(std::string(kHostnameLabel) + " in (" +
                                                   values + ")"));
  std::set<std::string> carried;
  if (const value* items = fieldOf(list, "items"); items != nullptr && items->is_array()) {
    for (const value& node : items->as_array()) {
      const value* labels = fieldOf(node.at("metadata"), "labels");
      if (labels != nullptr) carried.insert(stringField(*labels, kHostnameLabel));
    }
  }
  // A Fabric run pins its ranks by this label (fabric_placement.h), as Kueue
  // pins the Workload's pods: the hostnames are what the run is given.
  for (const std::string& h : in.assigned.hostnames) {
    (carried.count(h) != 0 ? in.nodes : in.missingHostnames).push_back(h);
  }
}

std::string PreflightReconciler::createRun(const value& workload,
                                           const api::DistBenchPreflightPolicy& policy,
                                           const PreflightPlan& plan) {
  const api::DistBenchmark run = api::preflightRun(policy, plan.target);
  try {
    client_.create(benchmarksPath(run.metadata.namespace_),
                   benchmarkObject(run, workloadOwnerReference(readWorkload(workload))));
  } catch (const kube::KubeApiError& e) {
    if (e.alreadyExists()) return "";  // made before a restart: the same attempt's run
    if (e.refused()) return e.what();  // admission, quota, a schema: no retry mends it
    throw;
  }
  // "gpu-a, gpu-b" or, with several ranks on a node, "gpu-a (8 ranks), gpu-b (8 ranks)".
  std::string nodes;
  const std::vector<std::string>& ranks = plan.target.nodes;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t k = i;
    while (k < ranks.size() && ranks[k] == ranks[i]) ++k;
    nodes += (nodes.empty() ? "" : ", ") + ranks[i] +
             (k - i > 1 ? " (" + std::to_string(k - i) + " ranks)" : "");
    i = k;
  }
  if (options_.onEvent) {
    options_.onEvent(workload, false, "PreflightStarted",
                     "checking nodes " + nodes + " with DistBenchmark " +
                         run.metadata.namespace_ + "/" + run.metadata.name + " (attempt " +
                         std::to_string(plan.target.attempt) + " of " +
                         std::to_string(policy.spec.attempts) + ")");
  }
  return "";
}

kube::Result PreflightReconciler::answer(const value& workload, const PreflightInputs& in,
                                         const PreflightPlan& plan,
                                         const std::optional<value>& run) {
  const value patch =
      checkAnswerPatch(workload, in.check, plan.answer, kube::formatRfc3339(options_.now()));
  try {
    client_.mergePatch(kueueWorkloadsPath(in.workload.namespace_, in.workload.name) +
                           "/status?fieldManager=" + kube::queryEscape(api::kPreflightControllerName),
                       patch);
  } catch (const kube::KubeApiError& e) {
    // Changed since it was read (evicted, another check answered): decide
    // again from a fresh read rather than answer what no longer holds.
    if (e.conflict()) return kube::Result::retry();
    if (e.notFound()) return kube::Result::awaitChange();
    throw;
  }
  const std::string runName = run ? kube::metadataField(*run, "name") : "";
  const SuspectNodeAction action =
      in.policy->spec.suspectNodes == api::PreflightSuspectNodes::Taint ? SuspectNodeAction::Taint
      : in.policy->spec.suspectNodes == api::PreflightSuspectNodes::Label
          ? SuspectNodeAction::Label
          : SuspectNodeAction::None;
  for (const std::string& node : plan.markNodes) {
    const SuspectNodeMark mark{node, "node", plan.answer.message};
    const std::string refused = markSuspectNode(client_, mark, action,
                                                in.workload.namespace_ + "/" + runName);
    if (options_.onEvent) {
      options_.onEvent(workload, !refused.empty(), refused.empty() ? "NodeMarked" : "NodeNotMarked",
                       refused.empty() ? std::string(toString(action)) + " " + kSuspectNodeKey +
                                             " on node " + node
                                       : refused);
    }
  }
  deleteRuns(in.workload, in.check, "");
  if (options_.onEvent) {
    options_.onEvent(workload, plan.answer.state != "Ready", eventReason(plan.answer.state),
                     plan.answer.message);
  }
  if (options_.onAnswered) {
    options_.onAnswered(
        {plan.answer.state, plan.outcome, run ? static_cast<double>(in.runAgeSeconds) : 0.0});
  }
  return kube::Result::awaitChange();
}

void PreflightReconciler::deleteRunsOfGone(const std::string& ns, const std::string& workload) {
  for (const value& run : runs_.list()) {
    if (kube::metadataField(run, "namespace") != ns) continue;
    const value* refs = fieldOf(run.at("metadata"), "ownerReferences");
    if (refs == nullptr || !refs->is_array()) continue;
    for (const value& ref : refs->as_array()) {
      if (stringField(ref, "kind") != "Workload" || stringField(ref, "name") != workload) continue;
      try {
        client_.remove(benchmarksPath(ns) + "/" + kube::metadataField(run, "name"));
      } catch (const kube::KubeApiError& e) {
        if (!e.notFound()) throw;
      }
    }
  }
}

void PreflightReconciler::deleteRuns(const WorkloadView& view, const std::string& checkName,
                                     const std::string& keep) {
  // A run of this check is one of its attempts' names; another check's
  // runs on the same Workload have other names.
  const AdmissionCheckEntry* entry = findCheck(view, checkName);
  const int last = std::max<int>(api::kMaxPreflightAttempts,
                                 entry != nullptr ? static_cast<int>(entry->retryCount) + 1 : 0);
  for (int attempt = 1; attempt <= last; ++attempt) {
    const std::string name = api::preflightRunName(preflightTarget(view, checkName, attempt));
    if (name == keep || !runs_.get(view.namespace_ + "/" + name)) continue;
    try {
      client_.remove(benchmarksPath(view.namespace_) + "/" + name);
    } catch (const kube::KubeApiError& e) {
      if (!e.notFound()) throw;
    }
  }
}

}  // namespace distbench::op
