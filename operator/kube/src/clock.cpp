#include "distbench/kube/clock.h"

namespace distbench::kube {
namespace {

class SteadyClock final : public Clock {
 public:
  TimePoint now() const override {
    return std::chrono::time_point_cast<Duration>(std::chrono::steady_clock::now());
  }

  void waitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                 TimePoint deadline) const override {
    cv.wait_until(lock, deadline);
  }
};

}  // namespace

Clock& steadyClock() {
  static SteadyClock clock;
  return clock;
}

Clock::TimePoint addSaturating(Clock::TimePoint from, Clock::Duration by) {
  if (by <= Clock::Duration::zero()) return from;
  if (from > Clock::TimePoint::max() - by) return Clock::TimePoint::max();
  return from + by;
}

}  // namespace distbench::kube
