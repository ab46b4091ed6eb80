// The preflight gate's reconcile of one Kueue Workload: for each of its
// admission checks whose AdmissionCheck is the gate's, read what the plan
// needs (the policy, the assigned nodes by their hostname label, this
// attempt's run), planPreflight, and carry the plan out: create the run,
// wait for it, or write the check's state, mark suspect nodes where the
// policy says so, and delete the run. Nothing is written once the Workload
// is evicted, deactivated or gone (planPreflight's guard, and the Workload's
// resourceVersion on the write).
#pragma once

#include <cpprest/json.h>

#include <functional>
#include <string>

#include "distbench/kube/informer.h"
#include "distbench/kube/kube_client.h"
#include "distbench/kube/reconcile_result.h"
#include "distbench/kube/rfc3339.h"
#include "distbench/kube/status_context.h"
#include "distbench/operator/preflight/preflight_plan.h"

namespace distbench::op {

// What one answer was, for the metrics.
struct PreflightAnswered {
  std::string state;    // Ready | Retry | Rejected
  std::string outcome;  // PreflightPlan::outcome
  double seconds = 0;   // from the run's creation; 0 when no run was made
};

struct PreflightReconcilerOptions {
  std::function<kube::SystemTime()> now = [] { return std::chrono::system_clock::now(); };
  // Events on the Workload.
  kube::EventSink onEvent;
  std::function<void(const PreflightAnswered&)> onAnswered;
};

class PreflightReconciler {
 public:
  // The informers are the controller's caches of AdmissionChecks, policies
  // and the gate's runs; all must outlive the reconciler.
  PreflightReconciler(kube::KubeClient& client, const kube::Informer& admissionChecks,
                      const kube::Informer& policies, const kube::Informer& runs,
                      PreflightReconcilerOptions options);

  // `key`: "<namespace>/<name>" of a Workload.
  kube::Result reconcile(const std::string& key);

 private:
  kube::Result reconcileCheck(const web::json::value& workload, const WorkloadView& view,
                              const std::string& checkName, const web::json::value& admissionCheck);
  PreflightInputs observe(const web::json::value& workload, const WorkloadView& view,
                          const std::string& checkName, const web::json::value& admissionCheck,
                          std::optional<api::DistBenchPreflightPolicy>& policy,
                          std::optional<web::json::value>& run);
  void resolveNodes(PreflightInputs& in);
  // "" when created (or found, made before a restart), else why the API
  // server refused it.
  std::string createRun(const web::json::value& workload,
                        const api::DistBenchPreflightPolicy& policy, const PreflightPlan& plan);
  kube::Result answer(const web::json::value& workload, const PreflightInputs& in,
                      const PreflightPlan& plan, const std::optional<web::json::value>& run);
  // Deletes the runs of `check` on this Workload, all attempts but `keep`.
  void deleteRuns(const WorkloadView& view, const std::string& checkName, const std::string& keep);
  // Deletes the runs owned by the Workload `ns/workload`, which is gone.
  void deleteRunsOfGone(const std::string& ns, const std::string& workload);

  kube::KubeClient& client_;
  const kube::Informer& admissionChecks_;
  const kube::Informer& policies_;
  const kube::Informer& runs_;
  PreflightReconcilerOptions options_;
};

}  // namespace distbench::op
