// The DistBenchmarkSchedule side of the operator: an informer for schedules,
// one for the DistBenchmarks they made (those carrying distbench.io/schedule),
// a work queue of schedule keys fed by both, and workers running the
// ScheduleReconciler. Started and stopped with the benchmark Controller, on
// the same leadership. When the API server does not serve the
// DistBenchmarkSchedule resource (its CRD not installed: Helm installs a
// chart's CRDs once, never on upgrade), schedules are off and say so in
// the log, and benchmarks work as before.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "distbench/kube/informer.h"
#include "distbench/kube/kube_client.h"
#include "distbench/kube/work_queue.h"
#include "distbench/kube/worker_pool.h"
#include "distbench/operator/schedule_reconciler.h"
#include "distbench/operator/timed_reconcile.h"

namespace distbench::op {

struct ScheduleControllerOptions {
  std::string ns;  // empty: every namespace
  int workers = 1;
  kube::WorkQueueOptions queue;
  kube::Informer::Options informer;
  ScheduleReconciler::Options reconciler;
  OnReconciled onReconciled;
  std::function<bool()> mayReconcile;  // as ControllerOptions
};

class ScheduleController {
 public:
  ScheduleController(kube::KubeClient& client, ScheduleControllerOptions options);
  ~ScheduleController();
  ScheduleController(const ScheduleController&) = delete;
  ScheduleController& operator=(const ScheduleController&) = delete;

  void startInformers();
  bool waitForSync(std::chrono::milliseconds timeout) const;
  bool synced() const;
  // As Controller's: again after pauseWorkers(), every cached schedule
  // first.
  void startWorkers();
  bool pauseWorkers(std::chrono::steady_clock::duration timeout);
  bool stop(std::chrono::steady_clock::duration timeout = std::chrono::seconds(10));
  // Every cached schedule into the queue: after a clock jump (tests drive
  // the reconciler's clock), each looks again at once.
  void enqueueAll();

  const kube::Informer& schedules() const { return *schedules_; }
  const kube::Informer& runs() const { return *runs_; }

 private:
  kube::KubeClient& client_;
  ScheduleControllerOptions options_;
  std::unique_ptr<kube::Informer> schedules_, runs_;
  kube::WorkQueue queue_;
  std::unique_ptr<ScheduleReconciler> reconciler_;
  std::unique_ptr<kube::WorkerPool> pool_;
  std::mutex workersMutex_;
  bool stopped_ = false;
};

// Whether the API server serves DistBenchmarkSchedules (in namespace `ns`,
// or all when empty). Throws KubeApiError when it cannot tell.
bool schedulesServed(kube::KubeClient& client, const std::string& ns);

}  // namespace distbench::op
