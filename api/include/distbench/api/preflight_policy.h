// The DistBenchPreflightPolicy resource (distbench.io/v1alpha1): what the
// preflight gate runs on the nodes a Kueue Workload is about to get, and what
// it answers (docs/preflight.md). Kueue's AdmissionCheck names one in
// spec.parameters; the policy is cluster-scoped because those parameters
// are. Plain values, as benchmark_spec.h; the operator's preflight controller
// turns them into runs and check states.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "distbench/api/run_template.h"
#include "distbench/api/spec_error.h"

namespace distbench::api {

inline constexpr const char* kPreflightPolicyKind = "DistBenchPreflightPolicy";
inline constexpr const char* kPreflightPolicyPlural = "distbenchpreflightpolicies";
// The AdmissionCheck spec.controllerName the gate answers for.
inline constexpr const char* kPreflightControllerName = "distbench.io/preflight";
// On every check run: the Workload it checks (its uid: a name may be longer
// than a label value), the attempt and the policy; the Workload's name as
// an annotation.
inline constexpr const char* kPreflightWorkloadUidLabel = "distbench.io/preflight-workload-uid";
inline constexpr const char* kPreflightAttemptLabel = "distbench.io/preflight-attempt";
inline constexpr const char* kPreflightPolicyLabel = "distbench.io/preflight-policy";
inline constexpr const char* kPreflightWorkloadAnnotation = "distbench.io/preflight-workload";

// Bounds (docs/crd-reference.md; the CRD states the same).
inline constexpr int kMaxPreflightAttempts = 10;
// Kueue's own retry backoff tops out at 30 minutes (its ProvisioningRequest
// check); a gate that waits longer holds the queue for nothing.
inline constexpr int64_t kMaxPreflightRetryDelaySeconds = 1800;
inline constexpr int64_t kMaxPreflightTimeoutSeconds = 86400;
// The most ranks one check runs (one per node, or per pod with
// ranksPerNode: Pods): past it the gate answers Rejected. The Fabric kind
// plans its pairs for any count; this bounds the run's pods and names.
inline constexpr int kMaxPreflightNodes = 1024;

// What an inconclusive verdict (an interval straddling the line) answers:
// Retry measures again on a later attempt; Ready admits.
enum class PreflightInconclusive { Retry, Ready };
// What a Workload without node names in its admission answers (topology-
// aware scheduling off, a lowest level other than kubernetes.io/hostname, or
// an assignment delayed until after the checks): the gate cannot know where
// the pods will run. Reject says so and deactivates; Ready admits unchecked,
// saying so in the check's message.
enum class PreflightUnassigned { Reject, Ready };
// What the gate does to a node the verdict names slow (as the operator's
// --suspect-nodes does for its own Fabric runs): nothing, a label, or a
// NoSchedule taint. Only on a failed check, and only what the policy says.
enum class PreflightSuspectNodes { None, Label, Taint };
// How many ranks the check puts on each assigned node: One measures the
// nodes and the links between them; Pods shapes the check as the job, as
// many ranks on a node as the Workload has pods there (the sum over its pod
// sets), so that ranks sharing a node's uplink (8 GPU pods on one node) are
// measured sharing it, and a Workload of several pods on one node is
// checked rather than admitted unchecked.
enum class PreflightRanksPerNode { One, Pods };

const char* toString(PreflightInconclusive);
const char* toString(PreflightUnassigned);
const char* toString(PreflightSuspectNodes);
const char* toString(PreflightRanksPerNode);

struct PreflightPolicySpec {
  // The run made on the Workload's nodes: a Fabric DistBenchmark whose
  // topology.trainers and benchmark.fabric.nodes the gate sets from the
  // assignment (ranksPerNode).
  RunTemplate template_;
  int attempts = 3;                 // failed checks before Rejected
  int64_t retryDelaySeconds = 60;   // first Retry's requeue delay, doubled per retry
  int64_t timeoutSeconds = 900;     // a run not finished by then is a failed check
  PreflightInconclusive inconclusive = PreflightInconclusive::Retry;
  PreflightUnassigned unassigned = PreflightUnassigned::Reject;
  PreflightSuspectNodes suspectNodes = PreflightSuspectNodes::None;
  PreflightRanksPerNode ranksPerNode = PreflightRanksPerNode::One;
};

// metadata as read from a document or the API server. The policy is
// cluster-scoped: a namespace in a document is ignored, as the API server
// ignores it.
using PreflightPolicyMetadata = StoredObjectMeta;

struct DistBenchPreflightPolicy {
  std::string apiVersion = kApiVersion;
  std::string kind = kPreflightPolicyKind;
  PreflightPolicyMetadata metadata;
  PreflightPolicySpec spec;
};

// YAML or JSON text; strict as parseDistBenchmark, defaults filled in,
// validated before return. Throws SpecError naming every bad field
// ("spec.attempts", "spec.template.spec.benchmark.kind").
DistBenchPreflightPolicy parseDistBenchPreflightPolicy(const std::string& yamlOrJsonText);
// As parseDistBenchPreflightPolicy, naming the file in place of "<document>".
DistBenchPreflightPolicy loadDistBenchPreflightPolicyFile(const std::string& path);

// Every problem, with full paths. The template is validated as the run the
// gate makes for the largest assignment (kMaxPreflightNodes nodes, the
// longest run name).
std::vector<FieldError> validate(const DistBenchPreflightPolicy& policy);

// The requeue delay after `retries` earlier retries: retryDelaySeconds
// doubled per retry, at most kMaxPreflightRetryDelaySeconds.
int64_t preflightRetryDelaySeconds(const PreflightPolicySpec& spec, int retries);

// What one check runs for.
struct PreflightTarget {
  std::string workloadName;
  std::string workloadNamespace;
  std::string workloadUid;
  std::string checkName;           // the AdmissionCheck's name
  int attempt = 1;                 // 1 + the check's retryCount
  // Rank i's kubernetes.io/hostname value, in the assignment's order: the
  // Fabric kind pins rank i by that label (spec.benchmark.fabric.nodes). A
  // node repeats when it holds several ranks (ranksPerNode: Pods).
  std::vector<std::string> nodes;
};

// "<workload>-preflight-<hash of uid, check>-<attempt>", at most 63
// characters (the workload name is cut to fit): one name per attempt, so an
// operator restarted mid-check finds its run instead of starting another.
std::string preflightRunName(const PreflightTarget& target);
// The DistBenchmark one check runs (without its owner reference, the
// controller's): the template's labels plus the three preflight labels, its
// annotations plus the Workload's name, its spec with topology.trainers = the
// ranks, benchmark.fabric.nodes = their nodes, and onePerNode false where a
// node holds several (the pods are pinned by node either way).
DistBenchmark preflightRun(const DistBenchPreflightPolicy& policy, const PreflightTarget& target);

}  // namespace distbench::api
