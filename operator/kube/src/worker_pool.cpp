#include "distbench/kube/worker_pool.h"

#include <exception>
#include <optional>
#include <stdexcept>
#include <utility>

namespace distbench::op {

WorkerPool::WorkerPool(WorkQueue& queue, Reconcile reconcile, Options options)
    : queue_(queue), reconcile_(std::move(reconcile)), options_(std::move(options)) {
  if (options_.workers < 1) throw std::invalid_argument("a worker pool needs at least 1 worker");
}

WorkerPool::~WorkerPool() {
  queue_.shutDown();
  for (std::thread& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
}

void WorkerPool::start() {
  if (!threads_.empty()) throw std::logic_error("worker pool already started");
  threads_.reserve(options_.workers);
  for (int i = 0; i < options_.workers; ++i) threads_.emplace_back([this] { run(); });
}

bool WorkerPool::stop(std::chrono::steady_clock::duration timeout) {
  queue_.shutDown();
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (!exitedCv_.wait_for(lock, timeout, [this] { return exited_ == threads_.size(); })) {
      return false;
    }
  }
  for (std::thread& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
  return true;
}

void WorkerPool::run() {
  for (;;) {
    std::optional<std::string> key = queue_.get(options_.idleWake);
    if (key) {
      process(*key);
    } else if (queue_.shuttingDown()) {
      // get() hands out ready keys before reporting shutdown, so nothing is
      // left for this worker. A key another worker is still on may come back
      // at its done(); that worker picks it up itself.
      break;
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  ++exited_;
  exitedCv_.notify_all();
}

void WorkerPool::process(const std::string& key) {
  std::optional<std::string> error;
  Result result;
  try {
    result = reconcile_(key);
  } catch (const std::exception& e) {
    error = e.what();
  } catch (...) {
    error = "unknown exception";
  }

  if (error) {
    ++errors_;
    queue_.addRateLimited(key);
    if (options_.onError) {
      // A logging hook that throws must not take the worker thread (and with
      // it the process) down.
      try {
        options_.onError(key, *error);
      } catch (...) {
      }
    }
  } else if (result.requeueAfter > std::chrono::milliseconds::zero()) {
    queue_.forget(key);
    queue_.addAfter(key, result.requeueAfter);
  } else if (result.requeue) {
    queue_.addRateLimited(key);
  } else {
    queue_.forget(key);
  }
  queue_.done(key);
}

}  // namespace distbench::op
