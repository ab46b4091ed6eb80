// The preflight gate: two controllers of the runtime (kube/controller.h)
// for Kueue's AdmissionCheck protocol, off unless the operator is started
// with --preflight (the chart's preflight.enabled), as Kueue's own check
// controllers are (docs/preflight.md).
//
// - AdmissionCheckController keeps the Active condition of every
//   AdmissionCheck whose controllerName is distbench.io/preflight: True
//   while its spec.parameters name a usable DistBenchPreflightPolicy.
// - PreflightController answers those checks on Workloads: primary kind
//   Workload (kueue.x-k8s.io/v1beta1), owning the check runs (DistBenchmarks
//   labelled with the Workload's uid, owned by it), following AdmissionChecks
//   and policies (a change requeues the Workloads it concerns).
#pragma once

#include <memory>
#include <string>

#include "distbench/kube/controller.h"
#include "distbench/kube/informer.h"
#include "distbench/kube/kube_client.h"
#include "distbench/operator/preflight/preflight_reconciler.h"

namespace distbench::op {

struct PreflightControllerOptions {
  kube::ControllerOptions runtime;
  std::string ns;  // the Workloads' (and runs') namespace; empty: every namespace
  kube::Informer::Options informer;
  PreflightReconcilerOptions reconciler;
};

class PreflightController : public kube::Controller {
 public:
  PreflightController(kube::KubeClient& client, PreflightControllerOptions options);
  ~PreflightController();  // stop(), before the reconciler goes
  PreflightController(const PreflightController&) = delete;
  PreflightController& operator=(const PreflightController&) = delete;

  const kube::Informer& runs() const { return *runs_; }

 private:
  const kube::Informer* admissionChecks_;
  const kube::Informer* policies_;
  const kube::Informer* runs_;
  std::unique_ptr<PreflightReconciler> reconciler_;
};

struct AdmissionCheckControllerOptions {
  kube::ControllerOptions runtime;
  kube::Informer::Options informer;
  std::function<kube::SystemTime()> now = [] { return std::chrono::system_clock::now(); };
};

class AdmissionCheckController : public kube::Controller {
 public:
  AdmissionCheckController(kube::KubeClient& client, AdmissionCheckControllerOptions options);
  ~AdmissionCheckController();
  AdmissionCheckController(const AdmissionCheckController&) = delete;
  AdmissionCheckController& operator=(const AdmissionCheckController&) = delete;

 private:
  kube::Result reconcile(const std::string& name);

  kube::KubeClient& client_;
  AdmissionCheckControllerOptions options_;
  const kube::Informer* policies_;
};

// Whether the API server serves what the gate reads: Kueue's v1beta1
// Workloads and AdmissionChecks, and DistBenchPreflightPolicies. "" when it
// does, else what is missing (for the log). Throws KubeApiError when it
// cannot tell.
std::string preflightMissingResources(kube::KubeClient& client);

}  // namespace distbench::op
