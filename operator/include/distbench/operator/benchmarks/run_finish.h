// What a reconcile does with a run that has ended (Succeeded or Failed),
// or is to end for its spec, decided apart from doing it, as the gang's plan is (gang_plan.h):
// whether the report is stored first, what clean-up removes by cleanPodPolicy, whether the role
// counts go to zero, and what the TTL asks; and which of a set of pods to delete, with what grace.
// Pure: the Reconciler reads the resource and its pods, and carries the plans out (reconciler.h);
// table tests in operator/tests/benchmarks/run_finish_test.cpp.
#pragma once

#include <cpprest/json.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "distbench/kube/kube_client.h"
#include "distbench/kube/rfc3339.h"

namespace distbench::op {

// What a reconcile does with the resource it read, before anything else.
enum class RunStage {
  RefuseSpec,  // an invalid spec, not yet Failed: Failed (InvalidSpec), and no more
  Finished,    // Succeeded or Failed: the report, clean-up, the TTL (planFinish)
  Live,        // the run goes on: its children and gang (gang_plan.h)
};
// `specValid`: the spec parsed and validated; `phase`: status.phase.
RunStage runStage(bool specValid, const std::string& phase);

// What clean-up removes of a finished run, by spec.runPolicy.cleanPodPolicy.
// Only what the benchmark controls, and only the object the cache showed.
struct CleanUpPlan {
  bool pods = false;
  // Running: pods that finished stay, with their logs.
  bool onlyUnfinishedPods = false;
  // Nothing is left to reach through the Services, nor for the
  // NetworkPolicy to guard.
  bool services = false;
  bool networkPolicy = false;
  // The ConfigMap stays with the finished pods that mount it unless every
  // pod goes; with every pod gone nobody needs the run key either.
  bool configMap = false;
  bool runKey = false;
};

CleanUpPlan planCleanUp(api::CleanPodPolicy policy);

// What finished() decides on.
struct FinishFacts {
  bool succeeded = false;     // status.phase is Succeeded (else Failed)
  bool specValid = false;     // the spec parsed and validated
  bool reportStored = false;  // the ReportStored condition is set, either way
  api::RunPolicy policy;
  kube::SystemTime completion;  // status.completionTime (now when unset)
  kube::SystemTime now;
};

struct FinishPlan {
  // After Succeeded the report is stored (report_store.h) before clean-up
  // can delete the master pod; it may ask to wait first.
  bool storeReport = false;
  CleanUpPlan cleanUp;
  // Keep the counts as they were at the end, but nothing is active any
  // more once the clean-up policy has removed what ran.
  bool zeroActiveCounts = false;
  enum class Ttl {
    Keep,    // no ttlSecondsAfterFinished: kept until someone deletes it
    Wait,    // look again after `ttlLeft`
    Delete,  // the TTL has passed: the resource is deleted (this UID only)
  };
  Ttl ttl = Ttl::Keep;
  std::chrono::milliseconds ttlLeft{0};
};

FinishPlan planFinish(const FinishFacts& facts);

// The deletes that remove `pods`: each not yet being deleted (with
// `onlyUnfinished`, not the finished ones) by its own grace period; each
// being deleted whose containers have exited at once (grace 0), since its
// kubelet may keep it for 30 s and more while the next gang needs the
// names. Each delete carries the pod's UID as its precondition. {path,
// options}, in the order of `pods`.
std::vector<std::pair<std::string, kube::DeleteOptions>> planPodDeletes(
    const std::vector<web::json::value>& pods, bool onlyUnfinished);

}  // namespace distbench::op
