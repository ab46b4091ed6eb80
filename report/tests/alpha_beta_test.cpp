// The link model's parts (docs/performance.md, "Prediction"): wire time, the
// ring's share, tbf's bucket as a fluid, the overlap of a transfer's own
// cost with its wire, the fit and the bucket replay.
#include "distbench/report/alpha_beta.h"

#include <gtest/gtest.h>

#include <cmath>

namespace distbench::report {
namespace {

constexpr double k100Mbit = 100e6;

TEST(WireSeconds, BytesOverTheRateTheLinkReallyGives) {
  EXPECT_DOUBLE_EQ(wireSeconds(1e6, 8e6, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(wireSeconds(1e6, 8e6, 0.5), 2.0);
  EXPECT_EQ(wireSeconds(1e6, kUnlimitedBitsPerSecond, 0.87), 0);
}

TEST(RingWire, MoreRanksSendMoreOfTheBufferAndOneRankNone) {
  const double n = 1e6;
  // 2(p-1)/p: 1 at p=2, 1.5 at p=4, 1.875 at p=16.
  EXPECT_NEAR(ringWireSeconds(n, 4, k100Mbit, 1) / ringWireSeconds(n, 2, k100Mbit, 1), 1.5, 1e-12);
  EXPECT_NEAR(ringWireSeconds(n, 16, k100Mbit, 1) / ringWireSeconds(n, 2, k100Mbit, 1), 1.875,
              1e-12);
  EXPECT_EQ(ringWireSeconds(n, 1, k100Mbit, 1), 0);
}

TEST(TbfBurst, AMillisecondOfTheRateAndAtLeast32KiB) {
  EXPECT_EQ(tbfBurstBytes(100e6), 32768);  // 12.5 KB in 1 ms: the floor
  EXPECT_EQ(tbfBurstBytes(1e9), 125000);
  EXPECT_EQ(tbfBurstBytes(5e9), 625000);
}

TEST(TokenBucketLink, ABurstPassesAtOnceThenTheRatePaces) {
  // 8 Mbit/s, eta 1: a byte per us. 1000 bytes of bucket.
  TokenBucketLink link(8e6, 1.0, 1000);
  EXPECT_NEAR(link.send(0, 500), 0, 1e-12);             // from the bucket
  EXPECT_NEAR(link.send(0, 1500), 1000e-6, 1e-12);      // 500 left, then 1000 at the rate
  EXPECT_NEAR(link.send(0, 100), 1100e-6, 1e-12);       // queued behind, bucket empty
  // Idle for 2 ms: the bucket refills to its 1000, no further.
  EXPECT_NEAR(link.send(3.1e-3, 3000), 3.1e-3 + 2000e-6, 1e-12);
}

TEST(TokenBucketLink, WithoutABucketItIsThePlainLinkAndUnlimitedCostsNothing) {
  TokenBucketLink plain(8e6, 0.5, 0);
  EXPECT_NEAR(plain.send(1, 1000), 1 + 2000e-6, 1e-12);
  TokenBucketLink none(kUnlimitedBitsPerSecond, 0.87, 0);
  EXPECT_EQ(none.send(2, 1e9), 2);
}

TEST(SmoothMax, BetweenTheLargerAndTheSum) {
  EXPECT_EQ(smoothMax(0, 3), 3);
  EXPECT_EQ(smoothMax(2, 0), 2);
  const double m = smoothMax(1, 1);
  EXPECT_GT(m, 1);
  EXPECT_LT(m, 2);
  EXPECT_NEAR(m, std::pow(2.0, 1 / kTransitionExponent), 1e-12);
  // Far apart, the larger alone.
  EXPECT_NEAR(smoothMax(1, 1000) / 1000, 1, 1e-4);
}

TEST(SlowestLink, PacesTheRing) {
  EXPECT_EQ(slowestLink({1e9, 1e8, kUnlimitedBitsPerSecond}), 1e8);
  EXPECT_TRUE(std::isinf(slowestLink({})));
}

TEST(FitLine, RecoversALine) {
  const LineFit fit = fitLine({1, 2, 3, 4}, {3, 5, 7, 9});
  EXPECT_NEAR(fit.intercept, 1, 1e-12);
  EXPECT_NEAR(fit.slope, 2, 1e-12);
  EXPECT_EQ(fit.points, 4);
}

TEST(FitLine, OneSizeGoesThroughTheOrigin) {
  const LineFit fit = fitLine({10, 10}, {1, 3});
  EXPECT_EQ(fit.intercept, 0);
  EXPECT_NEAR(fit.slope, 0.2, 1e-12);
}

TEST(FitLine, NeverPredictsThatMoreBytesCostLessOrANegativeStart) {
  const LineFit falling = fitLine({1, 2, 3}, {3, 2, 1});
  EXPECT_EQ(falling.slope, 0);
  EXPECT_NEAR(falling.intercept, 2, 1e-12);
  const LineFit belowZero = fitLine({1, 2, 3}, {0.5, 2, 3.5});  // intercept -1
  EXPECT_EQ(belowZero.intercept, 0);
  EXPECT_GT(belowZero.slope, 0);
}

TEST(ReplayBuckets, ALateBucketDominates) {
  // Two small buckets early in backward, a big one launched at its end
  // (10 ms): the step waits for the last one, however early the others were.
  const auto cost = [](double bytes) { return bytes * 1e-9; };
  const double done = replayBuckets({{1e6, 1e-3}, {1e6, 2e-3}, {8e6, 10e-3}}, cost);
  EXPECT_NEAR(done, 18e-3, 1e-12);
}

TEST(ReplayBuckets, BucketsQueueBehindEachOther) {
  // Launched together, run one at a time.
  const auto cost = [](double) { return 4e-3; };
  EXPECT_NEAR(replayBuckets({{1, 0}, {1, 0}, {1, 0}}, cost), 12e-3, 1e-12);
}

TEST(ReplayBuckets, FullOverlapEndsWithinBackward) {
  // Every bucket done before the next launches: the last finishes 1 ms after
  // its launch, well inside a 20 ms backward.
  const auto cost = [](double) { return 1e-3; };
  EXPECT_NEAR(replayBuckets({{1, 2e-3}, {1, 5e-3}, {1, 8e-3}}, cost), 9e-3, 1e-12);
  EXPECT_EQ(replayBuckets({}, cost), 0);
}

}  // namespace
}  // namespace distbench::report
