// Worker threads that take keys off a WorkQueue and reconcile them, with
// controller-runtime's rules for what happens next: a failure is retried with
// backoff, a requested delay is honoured, and success resets the backoff.
// The workers can be paused and started again on the same queue (a replica
// that lost the leader-election Lease stops reconciling, keeps its queue and
// campaigns again).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "distbench/kube/clock.h"
#include "distbench/kube/reconcile_result.h"
#include "distbench/kube/work_queue.h"

namespace distbench::kube {

class WorkerPool {
 public:
  // Throwing is how a reconcile reports an error.
  using Reconcile = std::function<Result(const std::string& key)>;
  // For logging; the key has already been requeued.
  using ErrorHandler = std::function<void(const std::string& key, const std::string& error)>;

  struct Options {
    int workers = 1;
    // Idle workers wake this often on the queue's clock, so that no wait is
    // unbounded; shutDown() wakes them sooner.
    Clock::Duration idleWake = std::chrono::seconds(1);
    ErrorHandler onError;
    // Asked before each reconcile (empty: always yes). No: the key goes back
    // to the queue untouched and the worker waits until yes or pause(), so
    // that nothing is reconciled once a replica's Lease has run out, even
    // before its election thread has noticed.
    std::function<bool()> mayReconcile;
  };

  // Throws std::invalid_argument unless workers >= 1. `queue` must outlive the
  // pool.
  WorkerPool(WorkQueue& queue, Reconcile reconcile, Options options);
  // stop(), then joins every worker however long it takes: detaching one would
  // leave it running against a destroyed queue.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Starts the workers; again only after a pause() that returned true
  // (std::logic_error while they run).
  void start();
  // Workers finish the key in hand, take no other, and exit; the queue stays
  // as it is (keys go on arriving and wait there). Waits up to `timeout`
  // (real time); false when a reconcile is still running, after which only
  // stop() and the destructor may follow.
  bool pause(std::chrono::steady_clock::duration timeout);
  // Shuts the queue down, so workers finish the ready keys and exit, and waits
  // up to `timeout` (real time) for them. False when some are still running:
  // a reconcile is stuck, and the caller decides what to report.
  bool stop(std::chrono::steady_clock::duration timeout);

  // Reconciles that threw.
  std::uint64_t errors() const { return errors_.load(); }

 private:
  void run();
  void process(const std::string& key);
  // Hands a key taken but not reconciled back to the queue, as it was.
  void putBack(const std::string& key);
  // Until mayReconcile says yes; false when pausing or shutting down instead.
  bool waitUntilMayReconcile();
  // Waits for every worker to exit; false at `timeout`.
  bool joinWorkers(std::chrono::steady_clock::duration timeout);

  WorkQueue& queue_;
  Reconcile reconcile_;
  Options options_;
  std::vector<std::thread> threads_;
  std::atomic<std::uint64_t> errors_{0};

  // Serializes start, pause and stop, which the election thread and the
  // main thread may call at once.
  std::mutex controlMu_;
  std::mutex mu_;
  std::condition_variable exitedCv_;
  std::condition_variable pausedCv_;
  std::size_t exited_ = 0;
  bool pausing_ = false;
};

}  // namespace distbench::kube
