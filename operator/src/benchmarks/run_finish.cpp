#include "distbench/operator/benchmarks/run_finish.h"

#include "distbench/kube/json_fields.h"
#include "distbench/operator/benchmarks/run_policy.h"
#include "distbench/operator/common/ownership.h"

namespace distbench::op {

RunStage runStage(bool specValid, const std::string& phase) {
  if (!specValid && phase != "Failed") return RunStage::RefuseSpec;
  if (phase == "Succeeded" || phase == "Failed") return RunStage::Finished;
  return RunStage::Live;
}

CleanUpPlan planCleanUp(api::CleanPodPolicy policy) {
  CleanUpPlan plan;
  if (policy == api::CleanPodPolicy::None) return plan;
  plan.pods = true;
  plan.onlyUnfinishedPods = policy == api::CleanPodPolicy::Running;
  plan.services = true;
  plan.networkPolicy = true;
  plan.configMap = policy == api::CleanPodPolicy::All;
  plan.runKey = policy == api::CleanPodPolicy::All;
  return plan;
}

FinishPlan planFinish(const FinishFacts& facts) {
  FinishPlan plan;
  plan.storeReport = facts.succeeded && facts.specValid && !facts.reportStored;
  plan.cleanUp = planCleanUp(facts.policy.cleanPodPolicy);
  plan.zeroActiveCounts = facts.policy.cleanPodPolicy != api::CleanPodPolicy::None;
  const std::optional<std::chrono::milliseconds> left =
      ttlLeft(facts.policy, facts.completion, facts.now);
  if (!left) return plan;
  if (left->count() > 0) {
    plan.ttl = FinishPlan::Ttl::Wait;
    plan.ttlLeft = *left;
  } else {
    plan.ttl = FinishPlan::Ttl::Delete;
  }
  return plan;
}

std::vector<std::pair<std::string, kube::DeleteOptions>> planPodDeletes(
    const std::vector<web::json::value>& pods, bool onlyUnfinished) {
  std::vector<std::pair<std::string, kube::DeleteOptions>> deletes;
  for (const web::json::value& pod : pods) {
    const std::string phase = kube::stringField(pod, "status", "phase");
    const bool finished = phase == "Succeeded" || phase == "Failed";
    const std::string path =
        kube::corePath(pod.at("metadata").at("namespace").as_string(), "pods", objectName(pod));
    const std::string uid = kube::stringField(pod, "metadata", "uid");
    if (!isDeleting(pod)) {
      if (!(onlyUnfinished && finished))
        deletes.push_back({path, kube::DeleteOptions{std::nullopt, uid}});
    } else if (finished) {
      // Its containers have exited, yet its kubelet keeps the object until
      // it has reclaimed the sandbox and volumes and its next status sync:
      // 30 s and more was measured, and the next gang's pods need the
      // names. What is left to reclaim the kubelet finishes on its own.
      deletes.push_back({path, kube::DeleteOptions{0, uid}});
    }
  }
  return deletes;
}

}  // namespace distbench::op
