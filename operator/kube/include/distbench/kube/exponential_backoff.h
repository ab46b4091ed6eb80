// Per-key retry delays that double with each consecutive failure, as
// client-go's ItemExponentialFailureRateLimiter: a key that keeps failing is
// retried less and less often, while other keys are unaffected.
#pragma once

#include <chrono>
#include <string>
#include <unordered_map>

namespace distbench::kube {

class ExponentialBackoff {
 public:
  using Duration = std::chrono::nanoseconds;

  // client-go's defaults: 5 ms, 10 ms, 20 ms, ... up to 1000 s.
  static constexpr Duration kDefaultBase = std::chrono::milliseconds(5);
  static constexpr Duration kDefaultMax = std::chrono::seconds(1000);

  // Throws std::invalid_argument unless 0 < base <= max.
  explicit ExponentialBackoff(Duration base = kDefaultBase, Duration max = kDefaultMax);

  // The delay before the next retry of `key`: base * 2^failures, capped at
  // max, or at `cap` when that is smaller (a failure whose cause ends by
  // itself, such as an API server that is down, is retried more often:
  // work_queue.h). Counts one more failure.
  Duration next(const std::string& key);
  Duration next(const std::string& key, Duration cap);
  // Success: the key's next failure starts again from base.
  void forget(const std::string& key);
  int failures(const std::string& key) const;

 private:
  Duration base_;
  Duration max_;
  // Only keys that are failing: forget() erases, so the map stays as small as
  // the set of keys currently in trouble.
  std::unordered_map<std::string, int> failures_;
};

}  // namespace distbench::kube
