#include "distbench/api/preflight_policy.h"

#include <algorithm>
#include <cstdio>

#include "distbench/api/object_names.h"
#include "distbench/api/role.h"
#include "object_name_rules.h"

namespace distbench::api {
namespace {

// FNV-1a, 32 bits: tells apart two checks of one workload, or two workloads
// whose names cut to the same prefix; not for security.
uint32_t fnv1a32(const std::string& bytes) {
  uint32_t hash = 2166136261u;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 16777619u;
  }
  return hash;
}

// A Workload's name is a DNS subdomain ('.' allowed, may start with a
// digit); a run's name is a DNS label starting with a letter.
std::string labelPart(const std::string& name) {
  std::string out;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    out += ok ? c : '-';
  }
  if (out.empty() || !(out.front() >= 'a' && out.front() <= 'z')) out = "w" + out;
  return out;
}

}  // namespace

const char* toString(PreflightInconclusive v) {
  return v == PreflightInconclusive::Retry ? "Retry" : "Ready";
}
const char* toString(PreflightUnassigned v) {
  return v == PreflightUnassigned::Reject ? "Reject" : "Ready";
}
const char* toString(PreflightSuspectNodes v) {
  switch (v) {
    case PreflightSuspectNodes::None:
      return "None";
    case PreflightSuspectNodes::Label:
      return "Label";
    case PreflightSuspectNodes::Taint:
      return "Taint";
  }
  return "?";
}

const char* toString(PreflightRanksPerNode v) {
  return v == PreflightRanksPerNode::One ? "One" : "Pods";
}

int64_t preflightRetryDelaySeconds(const PreflightPolicySpec& spec, int retries) {
  int64_t delay = spec.retryDelaySeconds;
  for (int i = 0; i < retries && delay < kMaxPreflightRetryDelaySeconds; ++i) delay *= 2;
  return std::min(delay, kMaxPreflightRetryDelaySeconds);
}

std::string preflightRunName(const PreflightTarget& target) {
  char suffix[48];
  std::snprintf(suffix, sizeof suffix, "-preflight-%08x-%d",
                static_cast<unsigned>(fnv1a32(target.workloadUid + "/" + target.checkName)),
                target.attempt);
  // The run's longest pod name, "<run>-trainer-<kMaxPreflightNodes - 1>",
  // must stay a label.
  const std::size_t longestPodSuffix =
      podName("", Role::Trainer, kMaxPreflightNodes - 1).size();
  const std::size_t room = detail::kMaxLabelLength - longestPodSuffix - std::string(suffix).size();
  std::string prefix = labelPart(target.workloadName).substr(0, room);
  while (!prefix.empty() && prefix.back() == '-') prefix.pop_back();
  return prefix + suffix;
}

DistBenchmark preflightRun(const DistBenchPreflightPolicy& policy, const PreflightTarget& target) {
  DistBenchmark run;
  run.metadata.name = preflightRunName(target);
  run.metadata.namespace_ = target.workloadNamespace;
  run.metadata.labels = policy.spec.template_.metadata.labels;
  run.metadata.labels[kPreflightWorkloadUidLabel] = target.workloadUid;
  run.metadata.labels[kPreflightAttemptLabel] = std::to_string(target.attempt);
  run.metadata.labels[kPreflightPolicyLabel] = policy.metadata.name;
  run.metadata.annotations = policy.spec.template_.metadata.annotations;
  run.metadata.annotations[kPreflightWorkloadAnnotation] = target.workloadName;
  run.spec = policy.spec.template_.spec;
  run.spec.topology.trainers = static_cast<int>(target.nodes.size());
  run.spec.benchmark.fabric.nodes = target.nodes;
  std::vector<std::string> distinct = target.nodes;
  std::sort(distinct.begin(), distinct.end());
  const bool shared = std::adjacent_find(distinct.begin(), distinct.end()) != distinct.end();
  if (shared) run.spec.benchmark.fabric.onePerNode = false;
  return run;
}

}  // namespace distbench::api
