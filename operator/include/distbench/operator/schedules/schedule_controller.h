// The DistBenchmarkSchedule controller: the runtime's generic controller
// (kube/controller.h) wired with schedules as its primary kind, the
// DistBenchmarks they made (those carrying distbench.io/schedule) as the
// kind they own, and the ScheduleReconciler. Started and stopped with the benchmark Controller, on
// the same leadership. When the API server does not serve the
// DistBenchmarkSchedule resource (its CRD not installed: Helm installs a
// chart's CRDs once, never on upgrade), schedules are off and say so in
// the log, and benchmarks work as before.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "distbench/kube/controller.h"
#include "distbench/kube/informer.h"
#include "distbench/kube/kube_client.h"
#include "distbench/kube/timed_reconcile.h"
#include "distbench/kube/work_queue.h"
#include "distbench/operator/schedules/schedule_reconciler.h"

namespace distbench::op {

struct ScheduleControllerOptions {
  // Workers (1), queue, onReconciled and mayReconcile: the runtime's own.
  kube::ControllerOptions runtime;
  std::string ns;  // empty: every namespace
  kube::Informer::Options informer;
  ScheduleReconciler::Options reconciler;
};

// Its lifecycle is kube::Controller's: again after pauseWorkers(), every
// cached schedule first; enqueueAll() after a clock jump (tests drive the
// reconciler's clock), so that each looks again at once.
class ScheduleController : public kube::Controller {
 public:
  ScheduleController(kube::KubeClient& client, ScheduleControllerOptions options);
  ~ScheduleController();  // stop(), before the reconciler goes
  ScheduleController(const ScheduleController&) = delete;
  ScheduleController& operator=(const ScheduleController&) = delete;

  const kube::Informer& schedules() const { return *schedules_; }
  const kube::Informer& runs() const { return *runs_; }

 private:
  const kube::Informer* schedules_;
  const kube::Informer* runs_;
  std::unique_ptr<ScheduleReconciler> reconciler_;
};

// Whether the API server serves DistBenchmarkSchedules (in namespace `ns`,
// or all when empty). Throws KubeApiError when it cannot tell.
bool schedulesServed(kube::KubeClient& client, const std::string& ns);

}  // namespace distbench::op
