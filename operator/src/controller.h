// The DistBenchmark controller: the runtime's generic controller
// (kube/controller.h) wired with DistBenchmarks as its primary kind, the
// kinds a benchmark owns (pods, Services, ConfigMaps, NetworkPolicies, all
// filtered by the distbench.io/benchmark label) and the Reconciler. What
// each cache keeps of an object is decided here (the trims).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "distbench/kube/controller.h"
#include "distbench/kube/informer.h"
#include "distbench/kube/kube_client.h"
#include "distbench/kube/timed_reconcile.h"
#include "distbench/kube/work_queue.h"
#include "distbench/operator/reconciler.h"
#include "distbench/operator/suspect_node_marks.h"

namespace distbench::op {

struct ControllerOptions {
  std::string ns;  // empty: every namespace
  int workers = 4;
  kube::WorkQueueOptions queue;
  kube::Informer::Options informer;
  kube::EventSink onEvent;
  // Every reconcile, with how it ended.
  kube::OnReconciled onReconciled;
  // Asked before each reconcile (WorkerPool::Options::mayReconcile); with
  // leader election, whether this replica still holds the Lease.
  std::function<bool()> mayReconcile;
  int createParallelism = 24;  // Reconciler::Options
  std::chrono::seconds createFailureTimeout{60};
  std::chrono::seconds reportFetchTimeout{60};  // Reconciler::Options
  SuspectNodeAction suspectNodes = SuspectNodeAction::None;  // Reconciler::Options
  ClusterOptions cluster;
};

class Controller {
 public:
  // `client` must outlive the controller.
  Controller(kube::KubeClient& client, ControllerOptions options);
  ~Controller();  // stop()
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  // As kube::Controller's.
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

  const kube::Informer& benchmarks() const { return *benchmarks_; }
  const kube::Informer& pods() const { return *pods_; }
  const kube::Informer& services() const { return *services_; }
  const kube::Informer& configMaps() const { return *configMaps_; }
  const kube::Informer& networkPolicies() const { return *networkPolicies_; }
  // DistBenchmarks in the cache by status.phase ("Pending" when unset).
  std::map<std::string, int> phaseCounts() const;

 private:
  kube::Controller runtime_;
  const kube::Informer* benchmarks_;
  const kube::Informer* pods_;
  const kube::Informer* services_;
  const kube::Informer* configMaps_;
  const kube::Informer* networkPolicies_;
  std::unique_ptr<Reconciler> reconciler_;
};

}  // namespace distbench::op
