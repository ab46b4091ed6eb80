#include "distbench/kube/token_bucket.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace distbench::kube {

TokenBucket::TokenBucket(double qps, int burst, Clock::TimePoint now)
    : qps_(qps), burst_(burst), tokens_(burst), last_(now) {
  if (!(qps > 0) || burst < 1) {
    throw std::invalid_argument("token bucket needs qps > 0 and burst >= 1");
  }
}

Clock::Duration TokenBucket::reserve(Clock::TimePoint now) {
  // A caller holding an older reading of the clock must not un-earn tokens.
  if (now > last_) {
    double elapsed = std::chrono::duration<double>(now - last_).count();
    tokens_ = std::min(burst_, tokens_ + elapsed * qps_);
    last_ = now;
  }
  tokens_ -= 1.0;
  if (tokens_ >= 0) return Clock::Duration::zero();
  // Rounded up: waiting a nanosecond too little would let the bucket run a
  // hair faster than qps.
  return Clock::Duration(static_cast<Clock::Duration::rep>(std::ceil(-tokens_ / qps_ * 1e9)));
}

}  // namespace distbench::kube
