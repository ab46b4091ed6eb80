#include "distbench/kube/worker_pool.h"

#include <exception>
#include <optional>
#include <stdexcept>
#include <utility>

#include "distbench/kube/kube_client.h"

namespace distbench::kube {

namespace {

// How often a waiting worker asks mayReconcile again, and a pause wakes the
// workers that went back to waiting on the queue just before it.
constexpr auto kPollPeriod = std::chrono::milliseconds(20);

}  // namespace

WorkerPool::WorkerPool(WorkQueue& queue, Reconcile reconcile, Options options)
    : queue_(queue), reconcile_(std::move(reconcile)), options_(std::move(options)) {
  if (options_.workers < 1) throw std::invalid_argument("a worker pool needs at least 1 worker");
}

WorkerPool::~WorkerPool() {
  queue_.shutDown();
  {
    std::lock_guard<std::mutex> lock(mu_);
    pausedCv_.notify_all();
  }
  for (std::thread& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
}

void WorkerPool::start() {
  std::lock_guard<std::mutex> control(controlMu_);
  if (!threads_.empty()) throw std::logic_error("worker pool already started");
  {
    std::lock_guard<std::mutex> lock(mu_);
    pausing_ = false;
    exited_ = 0;
  }
  threads_.reserve(options_.workers);
  for (int i = 0; i < options_.workers; ++i) threads_.emplace_back([this] { run(); });
}

bool WorkerPool::joinWorkers(std::chrono::steady_clock::duration timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  {
    std::unique_lock<std::mutex> lock(mu_);
    while (exited_ != threads_.size()) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      lock.unlock();
      // A worker that checked for a pause just before it began may be back
      // inside get(): wake it again until every one has seen it.
      queue_.interrupt();
      lock.lock();
      pausedCv_.notify_all();
      exitedCv_.wait_for(lock, kPollPeriod, [this] { return exited_ == threads_.size(); });
    }
  }
  for (std::thread& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
  return true;
}

bool WorkerPool::pause(std::chrono::steady_clock::duration timeout) {
  std::lock_guard<std::mutex> control(controlMu_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    pausing_ = true;
  }
  if (!joinWorkers(timeout)) return false;
  threads_.clear();
  // A stop() while paused then has no worker to wait for.
  std::lock_guard<std::mutex> lock(mu_);
  exited_ = 0;
  return true;
}

bool WorkerPool::stop(std::chrono::steady_clock::duration timeout) {
  std::lock_guard<std::mutex> control(controlMu_);
  queue_.shutDown();
  return joinWorkers(timeout);
}

void WorkerPool::putBack(const std::string& key) {
  // Added while it is still ours, it is due again once done() hands it back.
  queue_.add(key);
  queue_.done(key);
}

bool WorkerPool::waitUntilMayReconcile() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (pausing_ || queue_.shuttingDown()) return false;
    lock.unlock();
    const bool may = options_.mayReconcile();
    lock.lock();
    if (may) return !pausing_;
    pausedCv_.wait_for(lock, kPollPeriod);
  }
}

void WorkerPool::run() {
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (pausing_) break;
    }
    std::optional<std::string> key = queue_.get(options_.idleWake);
    if (key) {
      bool go;
      {
        std::lock_guard<std::mutex> lock(mu_);
        go = !pausing_;
      }
      if (go && options_.mayReconcile) go = waitUntilMayReconcile();
      if (go) {
        process(*key);
      } else {
        putBack(*key);
      }
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
  RetryCause cause = RetryCause::kFailed;
  Result result;
  try {
    result = reconcile_(key);
  } catch (const KubeApiError& e) {
    error = e.what();
    if (e.unavailable()) cause = RetryCause::kUnavailable;
  } catch (const std::exception& e) {
    error = e.what();
  } catch (...) {
    error = "unknown exception";
  }

  if (error) {
    ++errors_;
    queue_.addRateLimited(key, cause);
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

}  // namespace distbench::kube
