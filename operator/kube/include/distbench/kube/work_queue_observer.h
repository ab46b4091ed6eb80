// What a WorkQueue reports for the operator's /metrics: the same signals as
// client-go's workqueue metrics (depth, adds, queue latency, work duration,
// retries), left as hooks so that the queue does not depend on prometheus-cpp.
#pragma once

#include <cstddef>

#include "distbench/kube/clock.h"

namespace distbench::kube {

// Called with the queue's lock held, so calls arrive in order and never
// concurrently; they must be quick and must not call back into the queue.
class WorkQueueObserver {
 public:
  virtual ~WorkQueueObserver() = default;

  // Keys ready to be handed out, after every change.
  virtual void depth(std::size_t ready) { (void)ready; }
  // A key became due (by add, or a delayed add coming due). Adds of a key
  // already waiting to be processed are absorbed and not counted.
  virtual void added() {}
  // From a key becoming due until get() handed it out; includes time spent
  // behind a reconcile of the same key.
  virtual void queueLatency(Clock::Duration waited) { (void)waited; }
  // From get() to done().
  virtual void workDuration(Clock::Duration worked) { (void)worked; }
  // Every addAfter() and addRateLimited(), even with no delay, as client-go
  // counts workqueue_retries_total.
  virtual void retried() {}
};

}  // namespace distbench::kube
