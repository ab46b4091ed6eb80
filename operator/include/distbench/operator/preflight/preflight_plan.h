// The preflight gate's decision for one Workload and one of its checks, as
// planGang is the gang's: pure, from what was read (the Workload, the
// policy, the nodes found for the assignment, this attempt's run) to what to
// do. The controller only reads, calls this and does what it says
// (docs/preflight.md has the table).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "distbench/api/preflight_policy.h"
#include "distbench/operator/preflight/check_run_verdict.h"
#include "distbench/operator/preflight/kueue_workload.h"

namespace distbench::op {

struct PreflightInputs {
  WorkloadView workload;
  std::string check;  // the AdmissionCheck's name
  // The policy its parameters name; null with `policyError` when it cannot
  // be used (the AdmissionCheck's Active condition says so too).
  const api::DistBenchPreflightPolicy* policy = nullptr;
  std::string policyError;
  AssignedNodes assigned;
  // The assignment's hostnames some node carries (the run pins its ranks
  // by kubernetes.io/hostname, as Kueue pins the pods), in its order, and
  // those no node carries (gone since the assignment).
  std::vector<std::string> nodes;
  std::vector<std::string> missingHostnames;
  // This attempt's run, when it exists, and its age.
  std::optional<CheckRunVerdict> run;
  int64_t runAgeSeconds = 0;
};

enum class PreflightStep {
  Ignore,     // not ours to answer now (see `reason`)
  CreateRun,  // start this attempt's run (`target`)
  Wait,       // the run is going; look again by `recheckAfterSeconds` (its timeout)
  Answer,     // write `answer`, mark `markNodes`, then delete the run
};

struct PreflightPlan {
  PreflightStep step = PreflightStep::Ignore;
  std::string reason;  // Ignore: why, for the log
  api::PreflightTarget target;
  std::optional<int64_t> recheckAfterSeconds;
  CheckAnswer answer;
  std::vector<std::string> markNodes;
  // The outcome the answer came from, for the metrics: Healthy, Slow,
  // Inconclusive, Failed, TimedOut, Unassigned, NodesMissing, OneNode,
  // TooLarge, Exhausted, RunRefused.
  std::string outcome;
};

PreflightPlan planPreflight(const PreflightInputs& in);

// What attempt `attempt` of `check` on `workload` runs for, without its
// nodes: its run's name (api::preflightRunName) is fixed by these.
api::PreflightTarget preflightTarget(const WorkloadView& workload, const std::string& check,
                                     int attempt);

// The answer when the API server refuses to create this attempt's run
// (`why`: its message): a failed check, Retry or Rejected as any other.
PreflightPlan planRunRefused(const PreflightInputs& in, const std::string& why);

}  // namespace distbench::op
