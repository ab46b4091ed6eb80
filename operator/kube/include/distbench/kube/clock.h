// Time as the work queue sees it. The operator runs on steadyClock(); tests
// drive a manual clock so that backoff and rate limits can be checked to the
// nanosecond without sleeping.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>

namespace distbench::kube {

class Clock {
 public:
  using Duration = std::chrono::nanoseconds;
  using TimePoint = std::chrono::time_point<std::chrono::steady_clock, Duration>;
  using WatchId = std::uint64_t;

  virtual ~Clock() = default;

  virtual TimePoint now() const = 0;

  // Blocks on `cv`, whose mutex `lock` holds, until it is notified or this
  // clock reaches `deadline`. May return early: callers re-check.
  virtual void waitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                         TimePoint deadline) const = 0;

  // A clock that jumps (a test's manual clock) must wake waiters whose
  // deadline the jump passed, and it cannot notify their condition variables
  // safely itself: it never holds their mutexes. So each waiter's owner
  // registers `onJump`, which takes its own mutex and notifies. The clock calls
  // it after every jump while holding no lock a waiter holds. A real clock's
  // waits time out on their own, hence the empty defaults.
  virtual WatchId watchJumps(std::function<void()> onJump) {
    (void)onJump;
    return 0;
  }
  virtual void unwatchJumps(WatchId id) { (void)id; }
};

// The process-wide std::chrono::steady_clock.
Clock& steadyClock();

// `from + by`, clamped so that a "wait forever"-sized timeout cannot overflow;
// a negative `by` counts as zero.
Clock::TimePoint addSaturating(Clock::TimePoint from, Clock::Duration by);

}  // namespace distbench::kube
