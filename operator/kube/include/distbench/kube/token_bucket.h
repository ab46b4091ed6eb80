// An overall limit on retries across all keys, as client-go's
// BucketRateLimiter (golang.org/x/time/rate): without it, many keys failing at
// once would each start at the 5 ms backoff and hammer the API server together.
#pragma once

#include "distbench/kube/clock.h"

namespace distbench::kube {

class TokenBucket {
 public:
  // client-go's defaults.
  static constexpr double kDefaultQps = 10.0;
  static constexpr int kDefaultBurst = 100;

  // The bucket starts full. Throws std::invalid_argument unless qps > 0 and
  // burst >= 1.
  TokenBucket(double qps, int burst, Clock::TimePoint now);

  // Takes a token, borrowing against the future when the bucket is empty, and
  // returns how long the caller must wait for the token it took to have been
  // earned. Never refuses: a reconcile is delayed, not dropped.
  Clock::Duration reserve(Clock::TimePoint now);

 private:
  double qps_;
  double burst_;
  // Negative while tokens are borrowed; each reservation waits its turn.
  double tokens_;
  Clock::TimePoint last_;
};

}  // namespace distbench::kube
