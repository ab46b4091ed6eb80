// The run policy's rules as pure functions of what a reconcile observed:
// no requests, no clock of their own, no status JSON. The reconciler
// gathers the facts, asks these, and acts on the answer; each rule has a
// table-driven unit test (run_policy_test.cpp) besides the tests against a
// real API server.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "distbench/api/benchmark_spec.h"
#include "distbench/kube/rfc3339.h"
#include "distbench/operator/benchmarks/gang_state.h"

namespace distbench::op {

// Seconds from the spec as a duration, capped at ten years so that a huge
// int64 (the CRD has no upper bound) cannot overflow the time arithmetic.
std::chrono::seconds boundedSeconds(int64_t seconds);

// From `now` until `when`, plus a second: timestamps are whole seconds, and
// waking a moment early would only schedule another wake. Never negative.
std::chrono::milliseconds until(kube::SystemTime when, kube::SystemTime now);

// A rule that may end the run: `reason` (the condition type and the Failed
// reason) when it does, else when it next could (`wakeIn`, 0 for never).
struct Verdict {
  std::string reason;
  std::string message;
  std::chrono::milliseconds wakeIn{0};

  bool endsRun() const { return !reason.empty(); }
};

// Pods, config and Services were made from the spec as it was when the
// pods were created (`createdFrom`, 0 before); a gang built from a changed
// spec would not match the ConfigMap its ranks read.
Verdict specChanged(int64_t createdFrom, int64_t generation);

// activeDeadlineSeconds, counted from the first attempt to create anything.
Verdict activeDeadline(const api::RunPolicy& policy, kube::SystemTime start, kube::SystemTime now);

// The API server refuses to create a child: the run fails once it has
// refused for `limit` since `since`; meanwhile, look again within 0.5-5 s.
Verdict createRefused(const std::string& message, kube::SystemTime since,
                      std::chrono::seconds limit, kube::SystemTime now);

// ttlSecondsAfterFinished: 0 once the resource is due for deletion, else
// how long until it is; nullopt when the policy keeps it.
std::optional<std::chrono::milliseconds> ttlLeft(const api::RunPolicy& policy,
                                                 kube::SystemTime completion, kube::SystemTime now);

// What a reconcile knows of the current gang besides its pods.
struct GangFacts {
  int gang = 0;          // status.restartCount: this gang's number
  int ranks = 0;         // pods the gang should have
  int trainers = 0;
  bool running = false;  // status.phase is Running
  // Pods gone while the gang ran ("<pod>: deleted while the gang ran", "; "
  // joined), empty when none.
  std::string lost;
};

struct GangDecision {
  enum class Action {
    Succeed,  // master and every trainer succeeded
    Restart,  // a rank failed or was lost, and the backoff limit allows another gang
    Fail,     // `condition` BackoffLimitExceeded, RankRefused or RendezvousTimeout;
              // `reason` the cause
    Run,      // every rank has started: phase Running
    Wait,     // not all ranks started yet, within rendezvousTimeoutSeconds
    Keep,     // running, nothing new
  };
  Action action = Action::Keep;
  // Restart and Fail: the cause Kubernetes names (OOMKilled, Evicted,
  // ImagePullBackOff, Unschedulable, ...: PodState::cause) when a pod has
  // one, else the rule's own name (RankFailed, BackoffLimitExceeded,
  // RankRefused, RendezvousTimeout). Run: AllRanksStarted.
  std::string reason;
  // Fail: the rule that ended the run, set as a condition of its own.
  std::string condition;
  std::string message;
  std::chrono::milliseconds wakeIn{0};  // Wait: when the rendezvous timeout fires
};

GangDecision decideGang(const GangState& gang, const GangFacts& facts, const api::RunPolicy& policy,
                        int rendezvousTimeoutSeconds, kube::SystemTime now);

}  // namespace distbench::op
