#include "distbench/kube/exponential_backoff.h"

#include <gtest/gtest.h>

namespace distbench::kube {
namespace {

using namespace std::chrono_literals;

TEST(ExponentialBackoff, DoublesFromFiveMillisecondsUpToTheThousandSecondCap) {
  ExponentialBackoff backoff;
  // 5 ms * 2^17 = 655.36 s is the last doubling under the cap.
  for (int failure = 0; failure <= 17; ++failure) {
    EXPECT_EQ(backoff.next("a"), 5ms * (1 << failure)) << "failure " << failure;
  }
  EXPECT_EQ(backoff.next("a"), 1000s);
  EXPECT_EQ(backoff.failures("a"), 19);
}

TEST(ExponentialBackoff, StaysCappedFarPastWhereTheShiftWouldOverflow) {
  ExponentialBackoff backoff;
  for (int failure = 0; failure < 2000; ++failure) backoff.next("a");
  EXPECT_EQ(backoff.next("a"), 1000s);
}

TEST(ExponentialBackoff, ForgetStartsAgainFromBaseForThatKeyOnly) {
  ExponentialBackoff backoff(1ms, 1s);
  backoff.next("a");
  backoff.next("a");
  backoff.next("b");
  backoff.forget("a");
  EXPECT_EQ(backoff.failures("a"), 0);
  EXPECT_EQ(backoff.next("a"), 1ms);
  EXPECT_EQ(backoff.next("b"), 2ms);
}

TEST(ExponentialBackoff, ACapOfTheCallersStopsTheGrowthButTheCountGoesOn) {
  ExponentialBackoff backoff;
  for (int failure = 0; failure < 20; ++failure) backoff.next("a", 5s);
  EXPECT_EQ(backoff.next("a", 5s), 5s);
  EXPECT_EQ(backoff.failures("a"), 21);
  // The key's own cap where it is the smaller, and never below the base.
  EXPECT_EQ(backoff.next("a", 2000s), 1000s);
  EXPECT_EQ(backoff.next("b", 1ms), 5ms);
}

TEST(ExponentialBackoff, RejectsNonPositiveBaseAndBaseAboveMax) {
  EXPECT_THROW(ExponentialBackoff(0ms, 1s), std::invalid_argument);
  EXPECT_THROW(ExponentialBackoff(2s, 1s), std::invalid_argument);
}

}  // namespace
}  // namespace distbench::kube
