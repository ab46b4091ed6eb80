// A clock that moves only when a test says so, so that backoff and rate limit
// deadlines can be hit exactly and nothing depends on the machine's speed.
#pragma once

#include <map>
#include <mutex>

#include "distbench/kube/clock.h"

namespace distbench::kube::testing {

class ManualClock final : public Clock {
 public:
  // Not zero: a deadline computed by subtracting from now() stays valid.
  explicit ManualClock(TimePoint start = TimePoint(std::chrono::hours(1))) : now_(start) {}

  TimePoint now() const override;
  // Only a notify or a jump wakes the waiter: real time does not count here.
  void waitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                 TimePoint deadline) const override;
  WatchId watchJumps(std::function<void()> onJump) override;
  void unwatchJumps(WatchId id) override;

  void advance(Duration by);

  // Waits (in real time, up to `limit`) until `count` threads are blocked in
  // waitUntil(): a test must not advance the clock before a waiter has read
  // it, or the waiter's deadline moves along with the jump.
  bool awaitWaiters(int count, std::chrono::milliseconds limit = std::chrono::seconds(10)) const;

 private:
  mutable std::mutex timeMu_;
  TimePoint now_;
  // Separate from timeMu_: watchers take the waiters' mutexes, and waiters
  // call now() while holding those.
  std::mutex watchersMu_;
  std::map<WatchId, std::function<void()>> watchers_;
  WatchId nextWatch_ = 1;

  mutable std::mutex waitersMu_;
  mutable std::condition_variable waitersCv_;
  mutable int waiters_ = 0;
};

}  // namespace distbench::kube::testing
