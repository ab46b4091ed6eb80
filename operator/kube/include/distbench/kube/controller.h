// A controller as sample-controller wires one over client-go: an informer
// for the primary kind and one per kind it owns, a work queue of primary
// keys fed by their changes, and a pool of workers running one reconcile
// function. Each of the operator's controllers is this, wired with its own
// kinds and reconcile (operator/src/<controller>/).
//
// Informers start at once, so a standby replica keeps a warm cache; workers
// start only when this replica should act (leader, or no election), pause
// when it stops leading, and start again if it wins the Lease back.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "distbench/kube/informer.h"
#include "distbench/kube/kube_client.h"
#include "distbench/kube/reconcile_result.h"
#include "distbench/kube/timed_reconcile.h"
#include "distbench/kube/work_queue.h"
#include "distbench/kube/worker_pool.h"

namespace distbench::kube {

struct ControllerOptions {
  int workers = 1;
  WorkQueueOptions queue;
  // Every reconcile, with how it ended.
  OnReconciled onReconciled;
  // Asked before each reconcile (WorkerPool::Options::mayReconcile); with
  // leader election, whether this replica still holds the Lease.
  std::function<bool()> mayReconcile;
};

class Controller {
 public:
  using Reconcile = std::function<Result(const std::string& key)>;

  // `client` must outlive the controller.
  Controller(KubeClient& client, ControllerOptions options);
  ~Controller();  // stop()
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  // The primary kind, once and first: a change enqueues the object's key.
  const Informer& watch(std::string path, std::string labelSelector, Informer::Options options);
  // A kind the primary owns: a change enqueues "<namespace>/<name>" of the
  // object's controlling owner of kind `ownerKind` (as client-go's
  // GetControllerOf); failing that, with `ownerLabel` set, of the primary
  // that label names. The label matters for a child an earlier resource of
  // that name left, and for one whose label was removed: a filtered watch
  // hears it as DELETED, and its owner must still hear of it.
  const Informer& own(std::string path, std::string labelSelector, Informer::Options options,
                      std::string ownerKind, std::string ownerLabel = "");
  // Another kind, cached for the reconcile to read; a change enqueues the
  // primary keys `keysOf` maps it to (none: a cache only), as
  // controller-runtime's Watches with EnqueueRequestsFromMapFunc.
  using KeysOf = std::function<std::vector<std::string>(const web::json::value& object)>;
  const Informer& follow(std::string path, std::string labelSelector, Informer::Options options,
                         KeysOf keysOf);
  // What the workers run; set before startWorkers().
  void reconcileWith(Reconcile reconcile);

  void startInformers();
  // Every informer has listed once.
  bool waitForSync(std::chrono::milliseconds timeout) const;
  bool synced() const;
  // Starts the workers. Again after pauseWorkers(), it first enqueues every
  // cached primary object, as a new process's first list does: another
  // leader may have acted in between.
  void startWorkers();
  // The workers finish the reconciles in hand and take no more keys; the
  // informers and the queue go on. False when a reconcile was still running
  // at `timeout`.
  bool pauseWorkers(std::chrono::steady_clock::duration timeout);
  // Drains the queue (waiting up to `timeout` for reconciles in flight),
  // then stops the informers. False when a reconcile was still running.
  bool stop(std::chrono::steady_clock::duration timeout = std::chrono::seconds(10));
  // Every cached primary object into the queue.
  void enqueueAll();

  const Informer& primary() const { return *informers_.front(); }

 private:
  void enqueueOwner(const std::string& key, const web::json::value& object,
                    const std::string& ownerKind, const std::string& ownerLabel);

  KubeClient& client_;
  ControllerOptions options_;
  // The primary's first.
  std::vector<std::unique_ptr<Informer>> informers_;
  WorkQueue queue_;
  Reconcile reconcile_;
  std::unique_ptr<WorkerPool> pool_;
  // Start, pause and stop come from the election thread and the main thread.
  std::mutex workersMutex_;
  bool stopped_ = false;
};

}  // namespace distbench::kube
