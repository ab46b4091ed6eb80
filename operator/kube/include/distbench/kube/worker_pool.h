// Worker threads that take keys off a WorkQueue and reconcile them, with
// controller-runtime's rules for what happens next: a failure is retried with
// backoff, a requested delay is honoured, and success resets the backoff.
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

namespace distbench::op {

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
  };

  // Throws std::invalid_argument unless workers >= 1. `queue` must outlive the
  // pool.
  WorkerPool(WorkQueue& queue, Reconcile reconcile, Options options);
  // stop(), then joins every worker however long it takes: detaching one would
  // leave it running against a destroyed queue.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Starts the workers; once only (std::logic_error after that).
  void start();
  // Shuts the queue down, so workers finish the ready keys and exit, and waits
  // up to `timeout` (real time) for them. False when some are still running:
  // a reconcile is stuck, and the caller decides what to report.
  bool stop(std::chrono::steady_clock::duration timeout);

  // Reconciles that threw.
  std::uint64_t errors() const { return errors_.load(); }

 private:
  void run();
  void process(const std::string& key);

  WorkQueue& queue_;
  Reconcile reconcile_;
  Options options_;
  std::vector<std::thread> threads_;
  std::atomic<std::uint64_t> errors_{0};

  std::mutex mu_;
  std::condition_variable exitedCv_;
  std::size_t exited_ = 0;
};

}  // namespace distbench::op
