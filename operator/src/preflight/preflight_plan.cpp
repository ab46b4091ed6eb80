#include "distbench/operator/preflight/preflight_plan.h"

#include <algorithm>

namespace distbench::op {
namespace {

PreflightPlan ignore(std::string reason) {
  PreflightPlan p;
  p.reason = std::move(reason);
  return p;
}

std::string attemptText(int attempt, int attempts) {
  return "attempt " + std::to_string(attempt) + " of " + std::to_string(attempts);
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out;
}

// A check that did not pass: Retry while attempts remain, else Rejected.
PreflightPlan failed(const PreflightInputs& in, int attempt, const std::string& outcome,
                     const std::string& why) {
  const api::PreflightPolicySpec& policy = in.policy->spec;
  PreflightPlan p;
  p.step = PreflightStep::Answer;
  p.outcome = outcome;
  const std::string where = attemptText(attempt, policy.attempts);
  if (attempt >= policy.attempts) {
    p.answer = {"Rejected", why + " (" + where + ": no attempts left)", std::nullopt};
  } else {
    const int64_t delay = api::preflightRetryDelaySeconds(policy, attempt - 1);
    p.answer = {"Retry", why + " (" + where + "; next in " + std::to_string(delay) + " s)", delay};
  }
  return p;
}

// Rank i's node: each assigned node that exists once, or once per pod the
// Workload has there (ranksPerNode: Pods); past kMaxPreflightNodes + 1 the
// count alone matters.
std::vector<std::string> rankNodes(const PreflightInputs& in) {
  std::vector<std::string> ranks;
  const std::size_t enough = static_cast<std::size_t>(api::kMaxPreflightNodes) + 1;
  for (const std::string& node : in.nodes) {
    int64_t copies = 1;
    if (in.policy->spec.ranksPerNode == api::PreflightRanksPerNode::Pods) {
      const auto& hosts = in.assigned.hostnames;
      const auto at = std::find(hosts.begin(), hosts.end(), node);
      const auto i = static_cast<std::size_t>(at - hosts.begin());
      if (at != hosts.end() && i < in.assigned.pods.size()) copies = in.assigned.pods[i];
    }
    for (int64_t k = 0; k < copies && ranks.size() < enough; ++k) ranks.push_back(node);
  }
  return ranks;
}

PreflightPlan answered(const std::string& state, const std::string& outcome,
                       const std::string& message) {
  PreflightPlan p;
  p.step = PreflightStep::Answer;
  p.outcome = outcome;
  p.answer = {state, message, std::nullopt};
  return p;
}

PreflightPlan fromVerdict(const PreflightInputs& in, int attempt, const std::string& runName) {
  const api::PreflightPolicySpec& policy = in.policy->spec;
  const CheckRunVerdict& run = *in.run;
  const std::string source = " (run " + in.workload.namespace_ + "/" + runName + ")";
  switch (run.outcome) {
    case CheckRunOutcome::Healthy:
      return answered("Ready", "Healthy", "distbench preflight passed: " + run.summary + source);
    case CheckRunOutcome::Inconclusive:
      if (policy.inconclusive == api::PreflightInconclusive::Ready) {
        return answered("Ready", "Inconclusive",
                        "distbench preflight admitted an inconclusive verdict (the policy's "
                        "inconclusive: Ready): " + run.summary + source);
      }
      return failed(in, attempt, "Inconclusive", "distbench preflight " + run.summary + source);
    case CheckRunOutcome::Slow: {
      PreflightPlan p = failed(in, attempt, "Slow", "distbench preflight found " + run.summary + source);
      if (policy.suspectNodes != api::PreflightSuspectNodes::None) p.markNodes = run.slowNodes;
      return p;
    }
    case CheckRunOutcome::Failed:
      return failed(in, attempt, "Failed", "distbench preflight: " + run.summary + source);
    case CheckRunOutcome::Running:
      break;
  }
  if (in.runAgeSeconds >= policy.timeoutSeconds) {
    return failed(in, attempt, "TimedOut",
                  "distbench preflight: the check's run did not finish within " +
                      std::to_string(policy.timeoutSeconds) + " s" + source);
  }
  PreflightPlan p;
  p.step = PreflightStep::Wait;
  p.recheckAfterSeconds = policy.timeoutSeconds - in.runAgeSeconds;
  return p;
}

}  // namespace

api::PreflightTarget preflightTarget(const WorkloadView& workload, const std::string& check,
                                     int attempt) {
  api::PreflightTarget t;
  t.workloadName = workload.name;
  t.workloadNamespace = workload.namespace_;
  t.workloadUid = workload.uid;
  t.checkName = check;
  t.attempt = attempt;
  return t;
}

PreflightPlan planPreflight(const PreflightInputs& in) {
  const AdmissionCheckEntry* entry = findCheck(in.workload, in.check);
  if (entry == nullptr) return ignore("the Workload has no entry for check " + in.check);
  if (!mayAnswer(in.workload, in.check)) {
    return ignore("check " + in.check + " is " + entry->state +
                  (in.workload.quotaReserved ? "" : ", no quota reserved") +
                  (in.workload.evicted ? ", evicted" : "") +
                  (in.workload.finished ? ", finished" : "") +
                  (in.workload.active ? "" : ", inactive") +
                  (in.workload.deleting ? ", being deleted" : ""));
  }
  if (in.policy == nullptr) return ignore("its policy cannot be used: " + in.policyError);
  const api::PreflightPolicySpec& policy = in.policy->spec;
  const int attempt = static_cast<int>(entry->retryCount) + 1;
  if (attempt > policy.attempts) {
    return answered("Rejected", "Exhausted",
                    "distbench preflight: " + std::to_string(entry->retryCount) +
                        " checks failed already and the policy allows " +
                        std::to_string(policy.attempts));
  }
  if (in.assigned.hostnames.empty()) {
    const std::string why = "distbench preflight cannot know this Workload's nodes: " +
                            in.assigned.unknown;
    if (policy.unassigned == api::PreflightUnassigned::Ready) {
      return answered("Ready", "Unassigned",
                      why + "; admitted unchecked (the policy's unassigned: Ready)");
    }
    return answered("Rejected", "Unassigned",
                    why + ". Give its ClusterQueue topology-aware flavors whose lowest level is "
                          "kubernetes.io/hostname, or set the policy's unassigned: Ready");
  }

  api::PreflightTarget target = preflightTarget(in.workload, in.check, attempt);
  target.nodes = rankNodes(in);
  const std::string runName = api::preflightRunName(target);

  if (in.run) return fromVerdict(in, attempt, runName);
  if (!in.missingHostnames.empty()) {
    return failed(in, attempt, "NodesMissing",
                  "distbench preflight: no node carries " + std::string(kHostnameLabel) + "=" +
                      joined(in.missingHostnames));
  }
  const bool perPod = policy.ranksPerNode == api::PreflightRanksPerNode::Pods;
  if (target.nodes.size() < 2) {
    return answered("Ready", "OneNode",
                    perPod ? "distbench preflight admitted a Workload of one pod (on " +
                                 joined(in.nodes) +
                                 ") unchecked: the Fabric check measures between two ranks or more"
                           : "distbench preflight admitted a Workload on one node (" +
                                 joined(in.nodes) +
                                 ") unchecked: the Fabric check measures between two nodes or "
                                 "more (the policy's ranksPerNode: Pods checks a node's pods)");
  }
  if (static_cast<int>(target.nodes.size()) > api::kMaxPreflightNodes) {
    int64_t pods = 0;
    for (int64_t n : in.assigned.pods) pods += n;
    return answered("Rejected", "TooLarge",
                    "distbench preflight checks at most " +
                        std::to_string(api::kMaxPreflightNodes) + " ranks; this Workload has " +
                        (perPod ? std::to_string(pods) + " pods"
                                : std::to_string(in.nodes.size()) + " nodes"));
  }
  PreflightPlan p;
  p.step = PreflightStep::CreateRun;
  p.target = std::move(target);
  p.recheckAfterSeconds = policy.timeoutSeconds;
  return p;
}

}  // namespace distbench::op

namespace distbench::op {

PreflightPlan planRunRefused(const PreflightInputs& in, const std::string& why) {
  const AdmissionCheckEntry* entry = findCheck(in.workload, in.check);
  const int attempt = entry != nullptr ? static_cast<int>(entry->retryCount) + 1 : 1;
  return failed(in, attempt, "RunRefused",
                "distbench preflight: the check's run could not be created: " + why);
}

}  // namespace distbench::op
