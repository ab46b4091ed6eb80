// The link model against what was measured on the CI VM (docs/performance.md,
// "Prediction"): Gloo's ring allreduce between two ranks in network
// namespaces, one link shaped to 100mbit with tbf.
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

// Unshaped p50 and the p50 at 100mbit of one allreduce on 2 ranks
// (/work/notes/issue22-design.md §3, measured with the real worker).
struct Measured {
  double bytes, unshaped, at100mbit, tolerance;
};

TEST(RingAllreduce, PredictsTheMeasuredShapedAllreduceFromTheUnshapedOne) {
  // The unshaped time stands for the local copy and reduce cost, which
  // overlaps the wire's 2(p-1)/p·n/(eta·B) at 100mbit: the larger paces it.
  // Every size lands within 10 % (64 KiB +10 %, 512 KiB +5 %, 4 MiB -3 %).
  const Measured table[] = {
      {64 * 1024, 0.37e-3, 5.48e-3, 0.10},
      {512 * 1024, 1.77e-3, 46.1e-3, 0.10},
      {4 * 1024 * 1024, 6.09e-3, 397e-3, 0.10},
  };
  for (const Measured& m : table) {
    RingCost cost;
    cost.localSecondsPerByte = m.unshaped / m.bytes;
    const double predicted =
        ringAllreduceSeconds(m.bytes, 2, k100Mbit, kDefaultLinkEfficiency, cost);
    EXPECT_NEAR(predicted / m.at100mbit, 1.0, m.tolerance) << m.bytes << " bytes";
  }
}

TEST(RingAllreduce, OneRankCostsNothing) {
  EXPECT_EQ(ringAllreduceSeconds(1e6, 1, k100Mbit, 0.87, {1e-3, 1e-9}), 0);
}

TEST(RingAllreduce, MoreRanksSendMoreOfTheBufferAndPayMoreSteps) {
  const double n = 1e6;
  // 2(p-1)/p: 1 at p=2, 1.5 at p=4, 1.875 at p=16.
  EXPECT_NEAR(ringWireSeconds(n, 4, k100Mbit, 1) / ringWireSeconds(n, 2, k100Mbit, 1), 1.5, 1e-12);
  EXPECT_NEAR(ringWireSeconds(n, 16, k100Mbit, 1) / ringWireSeconds(n, 2, k100Mbit, 1), 1.875,
              1e-12);
  const RingCost alphaOnly{1e-3, 0};
  EXPECT_NEAR(ringAllreduceSeconds(0, 4, k100Mbit, 1, alphaOnly), 6e-3, 1e-12);
}

TEST(RingAllreduce, TheSlowerOfCopyingAndTheWirePacesIt) {
  const RingCost cost{1e-3, 1e-9};  // 2 ms of steps and 1 ms per MB on 2 ranks
  // Unshaped: the copies. 100mbit: 80 ms of wire hide them.
  EXPECT_NEAR(ringAllreduceSeconds(1e6, 2, kUnlimitedBitsPerSecond, 1, cost), 3e-3, 1e-12);
  EXPECT_NEAR(ringAllreduceSeconds(1e6, 2, k100Mbit, 1, cost), 0.08, 1e-12);
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
