// The operator's moving parts wired together: an informer for
// DistBenchmarks and one per owned kind (pods, Services, ConfigMaps,
// NetworkPolicies, all filtered by the distbench.io/benchmark label), a work queue fed by their
// changes, and worker threads that run the Reconciler. Informers start at
// once, so a standby replica keeps a warm cache; workers start only when
// this replica should act (leader, or no election), and pause when it stops
// leading, to start again if it wins the Lease back.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "distbench/kube/informer.h"
#include "distbench/kube/kube_client.h"
#include "distbench/kube/work_queue.h"
#include "distbench/kube/worker_pool.h"
#include "distbench/operator/reconciler.h"
#include "distbench/operator/suspect_node_marks.h"
#include "distbench/operator/timed_reconcile.h"

namespace distbench::op {

struct ControllerOptions {
  std::string ns;  // empty: every namespace
  int workers = 4;
  kube::WorkQueueOptions queue;
  kube::Informer::Options informer;
  Reconciler::EventSink onEvent;
  // Every reconcile, with how it ended.
  OnReconciled onReconciled;
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

  void startInformers();
  // Every informer has listed once.
  bool waitForSync(std::chrono::milliseconds timeout) const;
  bool synced() const;
  // Starts the workers. Again after pauseWorkers(), it first enqueues every
  // cached benchmark, as a new process's first list does: another leader
  // may have acted in between.
  void startWorkers();
  // The workers finish the reconciles in hand and take no more keys; the
  // informers and the queue go on. False when a reconcile was still running
  // at `timeout`.
  bool pauseWorkers(std::chrono::steady_clock::duration timeout);
  // Drains the queue (waiting up to `timeout` for reconciles in flight),
  // then stops the informers. False when a reconcile was still running.
  bool stop(std::chrono::steady_clock::duration timeout = std::chrono::seconds(10));

  const kube::Informer& benchmarks() const { return *benchmarks_; }
  const kube::Informer& pods() const { return *pods_; }
  const kube::Informer& services() const { return *services_; }
  const kube::Informer& configMaps() const { return *configMaps_; }
  const kube::Informer& networkPolicies() const { return *networkPolicies_; }
  // DistBenchmarks in the cache by status.phase ("Pending" when unset).
  std::map<std::string, int> phaseCounts() const;

 private:
  void enqueueOwner(const std::string& key, const web::json::value& object);

  kube::KubeClient& client_;
  ControllerOptions options_;
  std::unique_ptr<kube::Informer> benchmarks_, pods_, services_, configMaps_, networkPolicies_;
  kube::WorkQueue queue_;
  std::unique_ptr<Reconciler> reconciler_;
  std::unique_ptr<kube::WorkerPool> pool_;
  // Start, pause and stop come from the election thread and the main thread.
  std::mutex workersMutex_;
  bool stopped_ = false;
};

}  // namespace distbench::op
