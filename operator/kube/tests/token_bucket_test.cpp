#include "distbench/kube/token_bucket.h"

#include <gtest/gtest.h>

namespace distbench::kube {
namespace {

using namespace std::chrono_literals;

const Clock::TimePoint kStart{1h};

// The bucket computes in floating point; a microsecond is far below anything
// that matters for pacing reconciles.
void expectNear(Clock::Duration actual, Clock::Duration expected) {
  EXPECT_NEAR(actual.count(), expected.count(), Clock::Duration(1us).count());
}

TEST(TokenBucket, BurstIsFreeThenEachTokenWaitsItsTurn) {
  TokenBucket bucket(10, 3, kStart);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(bucket.reserve(kStart), 0ns);
  expectNear(bucket.reserve(kStart), 100ms);
  expectNear(bucket.reserve(kStart), 200ms);
  // Later callers queue behind the borrowed tokens, less the time gone by.
  expectNear(bucket.reserve(kStart + 50ms), 250ms);
}

TEST(TokenBucket, RefillsAtQpsUpToTheBurst) {
  TokenBucket bucket(10, 3, kStart);
  for (int i = 0; i < 3; ++i) bucket.reserve(kStart);
  // 100 ms earns one token.
  EXPECT_EQ(bucket.reserve(kStart + 100ms), 0ns);
  expectNear(bucket.reserve(kStart + 100ms), 100ms);
  // An hour idle earns no more than the burst.
  const Clock::TimePoint later = kStart + 1h;
  for (int i = 0; i < 3; ++i) EXPECT_EQ(bucket.reserve(later), 0ns);
  expectNear(bucket.reserve(later), 100ms);
}

TEST(TokenBucket, AnOlderReadingOfTheClockEarnsNothing) {
  TokenBucket bucket(1, 1, kStart);
  bucket.reserve(kStart + 1s);
  expectNear(bucket.reserve(kStart), 1s);
}

TEST(TokenBucket, RejectsNonPositiveRateAndEmptyBurst) {
  EXPECT_THROW(TokenBucket(0, 1, kStart), std::invalid_argument);
  EXPECT_THROW(TokenBucket(-1, 1, kStart), std::invalid_argument);
  EXPECT_THROW(TokenBucket(1, 0, kStart), std::invalid_argument);
}

}  // namespace
}  // namespace distbench::kube
