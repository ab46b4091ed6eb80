#include "distbench/kube/exponential_backoff.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace distbench::kube {

ExponentialBackoff::ExponentialBackoff(Duration base, Duration max) : base_(base), max_(max) {
  if (base <= Duration::zero() || max < base) {
    throw std::invalid_argument("exponential backoff needs 0 < base <= max");
  }
}

ExponentialBackoff::Duration ExponentialBackoff::next(const std::string& key) {
  return next(key, max_);
}

ExponentialBackoff::Duration ExponentialBackoff::next(const std::string& key, Duration cap) {
  const Duration most = std::max(base_, std::min(max_, cap));
  int& count = failures_[key];
  int exponent = count;
  if (count < std::numeric_limits<int>::max()) ++count;
  // In floating point so that a key failing for days cannot overflow the
  // shift; anything past max is max anyway.
  double nanos = static_cast<double>(base_.count()) * std::ldexp(1.0, exponent);
  if (nanos >= static_cast<double>(most.count())) return most;
  return Duration(static_cast<Duration::rep>(nanos));
}

void ExponentialBackoff::forget(const std::string& key) { failures_.erase(key); }

int ExponentialBackoff::failures(const std::string& key) const {
  auto it = failures_.find(key);
  return it == failures_.end() ? 0 : it->second;
}

}  // namespace distbench::kube
