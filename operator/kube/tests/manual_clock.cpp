#include "manual_clock.h"

namespace distbench::kube::testing {

Clock::TimePoint ManualClock::now() const {
  std::lock_guard<std::mutex> lock(timeMu_);
  return now_;
}

void ManualClock::waitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                            TimePoint deadline) const {
  // No lost wakeup: advance() moves the time before its watchers take the
  // waiter's mutex to notify, and the waiter holds that mutex from this check
  // until wait() releases it.
  if (now() >= deadline) return;
  {
    std::lock_guard<std::mutex> count(waitersMu_);
    ++waiters_;
    waitersCv_.notify_all();
  }
  cv.wait(lock);
  std::lock_guard<std::mutex> count(waitersMu_);
  --waiters_;
}

bool ManualClock::awaitWaiters(int count, std::chrono::milliseconds limit) const {
  std::unique_lock<std::mutex> lock(waitersMu_);
  return waitersCv_.wait_for(lock, limit, [&] { return waiters_ >= count; });
}

Clock::WatchId ManualClock::watchJumps(std::function<void()> onJump) {
  std::lock_guard<std::mutex> lock(watchersMu_);
  WatchId id = nextWatch_++;
  watchers_.emplace(id, std::move(onJump));
  return id;
}

void ManualClock::unwatchJumps(WatchId id) {
  std::lock_guard<std::mutex> lock(watchersMu_);
  watchers_.erase(id);
}

void ManualClock::advance(Duration by) {
  {
    std::lock_guard<std::mutex> lock(timeMu_);
    now_ += by;
  }
  std::lock_guard<std::mutex> lock(watchersMu_);
  for (auto& [id, onJump] : watchers_) onJump();
}

}  // namespace distbench::kube::testing
