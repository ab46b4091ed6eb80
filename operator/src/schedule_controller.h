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
#include "distbench/operator/schedule_reconciler.h"

namespace distbench::op {

struct ScheduleControllerOptions {
  std::string ns;  // empty: every namespace
  int workers = 1;
  kube::WorkQueueOptions queue;
  kube::Informer::Options informer;
  ScheduleReconciler::Options reconciler;
  kube::OnReconciled onReconciled;
  std::function<bool()> mayReconcile;  // as ControllerOptions
};

class ScheduleController {
 public:
  ScheduleController(kube::KubeClient& client, ScheduleControllerOptions options);
  ~ScheduleController();
  ScheduleController(const ScheduleController&) = delete;
  ScheduleController& operator=(const ScheduleController&) = delete;

  // As kube::Controller's: again after pauseWorkers(), every cached
  // schedule first.
  void startInformers() { runtime_.startInformers(); }
  bool waitForSync(std::chrono::milliseconds timeout) const {
    return runtime_.waitForSync(timeout);
  }
  bool synced() const { return runtime_.synced(); }
  void startWorkers() { runtime_.startWorkers(); }
  bool pauseWorkers(std::chrono::steady_clock::duration timeout) {
    return runtime_.pauseWorkers(timeout);
  }
  bool stop(std::chrono::steady_clock::duration timeout = std::chrono::seconds(10)) {
    return runtime_.stop(timeout);
  }
  // Every cached schedule into the queue: after a clock jump (tests drive
  // the reconciler's clock), each looks again at once.
  void enqueueAll() { runtime_.enqueueAll(); }

  const kube::Informer& schedules() const { return *schedules_; }
  const kube::Informer& runs() const { return *runs_; }

 private:
  kube::Controller runtime_;
  const kube::Informer* schedules_;
  const kube::Informer* runs_;
  std::unique_ptr<ScheduleReconciler> reconciler_;
};

// Whether the API server serves DistBenchmarkSchedules (in namespace `ns`,
// or all when empty). Throws KubeApiError when it cannot tell.
bool schedulesServed(kube::KubeClient& client, const std::string& ns);

}  // namespace distbench::op
