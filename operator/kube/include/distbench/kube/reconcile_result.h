// What one reconcile asks of the work queue next, as controller-runtime's
// reconcile.Result: a type of its own because a reconciler returns it without
// needing the worker threads (worker_pool.h) that act on it.
#pragma once

#include <chrono>

namespace distbench::kube {

// What a reconcile asks of the queue; built with the named constructors.
struct Result {
  // Retry with the key's backoff, without counting an error.
  bool requeue = false;
  // Reconcile again after this long (wins over `requeue`).
  std::chrono::milliseconds requeueAfter{0};

  // Nothing to do until a watched object changes.
  static Result awaitChange() { return {}; }
  // Look again after `delay`: a deadline, a poll of what no watch reports.
  static Result after(std::chrono::milliseconds delay) { return {false, delay}; }
  // Start over soon, with the key's backoff: a write lost a race (409).
  static Result retry() { return {true, {}}; }
};

}  // namespace distbench::kube
