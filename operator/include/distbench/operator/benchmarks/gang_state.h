// What the operator reads off a benchmark's pods: one gang's phase per role,
// why pods wait or failed, and the master's result summary. Pure functions of
// the pods' JSON, so the run-policy decisions built on them are testable
// without an API server.
#pragma once

#include <cpprest/json.h>

#include <optional>
#include <string>
#include <vector>

namespace distbench::op {

struct PodState {
  std::string name;
  std::string role;  // distbench.io/role: master, ps, trainer
  int rank = -1;     // distbench.io/rank
  int gang = -1;     // distbench.io/gang; -1 when the label is missing or not a number
  std::string phase;  // Pending, Running, Succeeded, Failed, Unknown
  bool ready = false;
  bool deleting = false;  // metadata.deletionTimestamp set
  std::string creationTimestamp;
  // Failed: exit code, reason and message of the container; Pending: why it
  // waits (the scheduler's PodScheduled message, or a waiting container's
  // reason such as ImagePullBackOff).
  std::string detail;
  // The cause Kubernetes names, when it is one a user can act on: OOMKilled,
  // Evicted, DeadlineExceeded (Failed); ImagePullBackOff, ErrImageNeverPull,
  // InvalidImageName, Unschedulable (Pending). Empty for an ordinary exit
  // (the worker's own error, in `detail`) or a pod that is merely slow.
  std::string cause;
  // The worker container's termination message (the master's result
  // summary), without run keys (api::redactRunKeys).
  std::string terminationMessage;
  // The worker container's exit code once it terminated, else -1.
  int exitCode = -1;

  // The worker refused the run (exit code 2: a spec or device it cannot
  // run, or another rank's such refusal), and Kubernetes did not end it:
  // another gang would be refused the same way.
  bool refused() const { return phase == "Failed" && exitCode == 2 && cause.empty() && !lost(); }

  // Being deleted before it finished (a user, a drain, an eviction): the
  // rank is as good as failed, and waiting out its termination would only
  // delay the gang's restart.
  bool lost() const { return deleting && phase != "Succeeded" && phase != "Failed"; }
};

PodState podState(const web::json::value& pod);

struct RoleCounts {
  int active = 0;  // created and not finished: Pending, Running or Unknown
  int ready = 0;
  int succeeded = 0;
  int failed = 0;
};

struct GangState {
  RoleCounts master;
  RoleCounts parameterServers;
  RoleCounts trainers;
  std::vector<PodState> pods;  // sorted by rank

  const RoleCounts& counts(const std::string& role) const;
  // Success is the master's and every trainer's: parameter servers serve
  // until told to stop, and how they end does not change the result.
  bool succeeded(int trainers) const;
  // Pods that failed or are being deleted before they finished, in rank order.
  std::vector<const PodState*> failedPods() const;
  // Every pod of the gang exists and has started (Running, or already
  // finished): the ranks have had their chance to rendezvous.
  bool allStarted(int expectedPods) const;
  // Pods still Pending, in rank order.
  std::vector<const PodState*> pendingPods() const;
  // The earliest pod creation time (RFC 3339), empty without pods.
  std::string startedAt() const;
};

// `pods`: one gang's pods (any order).
GangState gangState(const std::vector<web::json::value>& pods);

// {"active": n, "ready": n, "succeeded": n, "failed": n}
web::json::value roleCountsJson(const RoleCounts& counts);

// "trainer-1 (rank 10): exit code 1, Error: <message>", one per pod, joined
// with "; " and cut at `maxBytes` so a status never grows without bound.
std::string describePods(const std::vector<const PodState*>& pods, std::size_t maxBytes = 1024);

// The first cause (PodState::cause) among `pods`, in their order; empty
// when none has one.
std::string firstCause(const std::vector<const PodState*>& pods);

// The master's termination message as JSON, or nullopt when it is empty or
// not a JSON object (a crashed master's log tail, under
// FallbackToLogsOnError), or when status could not carry it: a number that
// is not finite (JSON has none; `1e999` reads as infinity, and a status
// holding one is a request the API server refuses, every time) or beyond
// kMaxResultNumber, or a field of another type than the CRD's schema says
// (`p50` a string, `summary` an object). Then `problem`, when given, says
// which field and why.
inline constexpr double kMaxResultNumber = 1e15;
std::optional<web::json::value> resultSummary(const PodState& master,
                                              std::string* problem = nullptr);

}  // namespace distbench::op
