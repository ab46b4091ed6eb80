// Elapsed wall time for the timing that feeds metrics and results.
#pragma once

#include <chrono>

namespace distbench::worker {

using Clock = std::chrono::steady_clock;

inline double secondsBetween(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double>(end - start).count();
}

inline double secondsSince(Clock::time_point start) { return secondsBetween(start, Clock::now()); }

}  // namespace distbench::worker
