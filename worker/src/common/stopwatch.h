// Elapsed wall time for the timing that feeds metrics and results.
#pragma once

#include <chrono>

namespace distbench::worker {

using Clock = std::chrono::steady_clock;

inline double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace distbench::worker
