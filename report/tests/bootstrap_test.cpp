#include "distbench/report/bootstrap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "distbench/report/percentiles.h"

namespace distbench::report {
namespace {

// Normal samples from Box-Muller over mt19937_64, so the test data is the
// same on every standard library (std::normal_distribution's is not).
std::vector<double> normalSamples(double mean, double stdev, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto unit = [&rng] { return (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53; };
  std::vector<double> samples;
  while (samples.size() < n) {
    const double radius = std::sqrt(-2 * std::log(unit()));
    const double angle = 2 * M_PI * unit();
    samples.push_back(mean + stdev * radius * std::cos(angle));
    if (samples.size() < n) samples.push_back(mean + stdev * radius * std::sin(angle));
  }
  return samples;
}

TEST(Bootstrap, IdenticalSamplesAreNotSignificant) {
  const std::vector<double> samples = normalSamples(1.0, 0.01, 30, 7);
  const MedianChange c = bootstrapMedianChange(samples, samples);
  EXPECT_EQ(c.pointChange, 0.0);
  EXPECT_LT(c.low, 0.0);
  EXPECT_GT(c.high, 0.0);
  EXPECT_FALSE(c.significant);
}

TEST(Bootstrap, ClearlyShiftedSamplesAreSignificant) {
  const std::vector<double> base = normalSamples(1.0, 0.01, 30, 1);
  const std::vector<double> test = normalSamples(1.1, 0.01, 30, 2);
  const MedianChange c = bootstrapMedianChange(base, test);
  EXPECT_NEAR(c.pointChange, 0.10, 0.01);
  EXPECT_LT(c.low, 0.10);
  EXPECT_GT(c.high, 0.10);
  EXPECT_GT(c.low, 0.08) << "the interval is narrow for noise of 1%";
  EXPECT_LT(c.high, 0.12);
  EXPECT_TRUE(c.significant);

  // Faster: the same interval, below 0.
  const MedianChange faster = bootstrapMedianChange(test, base);
  EXPECT_LT(faster.high, 0.0);
  EXPECT_TRUE(faster.significant);
}

TEST(Bootstrap, HeavyOverlapIsNotSignificant) {
  const std::vector<double> base = normalSamples(1.0, 0.05, 30, 3);
  const std::vector<double> test = normalSamples(1.005, 0.05, 30, 4);
  const MedianChange c = bootstrapMedianChange(base, test);
  EXPECT_LT(c.low, 0.0);
  EXPECT_GT(c.high, 0.0);
  EXPECT_FALSE(c.significant);
}

TEST(Bootstrap, PointChangeIsOnTheRealSamples) {
  const MedianChange c = bootstrapMedianChange({1, 2, 3, 4}, {3, 3, 3});
  EXPECT_DOUBLE_EQ(c.pointChange, 3 / 2.5 - 1);
  EXPECT_LE(c.low, c.high);
}

TEST(Bootstrap, HigherConfidenceWidensTheInterval) {
  const std::vector<double> base = normalSamples(1.0, 0.05, 40, 5);
  const std::vector<double> test = normalSamples(1.02, 0.05, 40, 6);
  BootstrapOptions narrow;
  narrow.confidence = 0.5;
  BootstrapOptions wide;
  wide.confidence = 0.99;
  const MedianChange n = bootstrapMedianChange(base, test, narrow);
  const MedianChange w = bootstrapMedianChange(base, test, wide);
  EXPECT_LT(w.low, n.low);
  EXPECT_GT(w.high, n.high);
}

TEST(Bootstrap, SameSeedSameIntervalOtherSeedOtherInterval) {
  const std::vector<double> base = normalSamples(1.0, 0.05, 25, 8);
  const std::vector<double> test = normalSamples(1.03, 0.05, 25, 9);
  const MedianChange a = bootstrapMedianChange(base, test);
  const MedianChange b = bootstrapMedianChange(base, test);
  EXPECT_EQ(a.low, b.low);
  EXPECT_EQ(a.high, b.high);
  BootstrapOptions other;
  other.seed = 99;
  const MedianChange c = bootstrapMedianChange(base, test, other);
  EXPECT_TRUE(c.low != a.low || c.high != a.high);
}

// Pinned so a change to the resampling (draw order, index draw, percentile)
// cannot go unnoticed: reports compared on two machines must agree.
TEST(Bootstrap, ResultIsPinned) {
  BootstrapOptions options;
  options.resamples = 500;
  options.seed = 42;
  const MedianChange c =
      bootstrapMedianChange({1.0, 1.1, 0.9, 1.05, 0.97}, {1.2, 1.0, 1.1, 1.15, 0.99}, options);
  EXPECT_NEAR(c.pointChange, 0.1, 1e-12);
  EXPECT_DOUBLE_EQ(c.low, -0.057142857142857162);
  EXPECT_DOUBLE_EQ(c.high, 0.22222222222222232);
}

TEST(Bootstrap, FastEnoughForLargeSamples) {
  const std::vector<double> base = normalSamples(1.0, 0.05, 1000, 10);
  const std::vector<double> test = normalSamples(1.0, 0.05, 1000, 11);
  const auto start = std::chrono::steady_clock::now();
  bootstrapMedianChange(base, test);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 1.0);
}

TEST(Bootstrap, RejectsWhatHasNoAnswer) {
  EXPECT_THROW(bootstrapMedianChange({}, {1.0}), std::invalid_argument);
  EXPECT_THROW(bootstrapMedianChange({1.0}, {}), std::invalid_argument);
  EXPECT_THROW(bootstrapMedianChange({1.0, 0.0}, {1.0}), std::invalid_argument);
  BootstrapOptions options;
  options.resamples = 0;
  EXPECT_THROW(bootstrapMedianChange({1.0}, {1.0}, options), std::invalid_argument);
  options = {};
  options.confidence = 1.0;
  EXPECT_THROW(bootstrapMedianChange({1.0}, {1.0}, options), std::invalid_argument);
  options.confidence = 0.0;
  EXPECT_THROW(bootstrapMedianChange({1.0}, {1.0}, options), std::invalid_argument);
}

TEST(Bootstrap, UniformIndexStaysInRangeAndReachesEveryIndex) {
  std::mt19937_64 rng(3);
  const UniformIndex seven(7);
  std::vector<int> counts(7);
  for (int i = 0; i < 70000; ++i) {
    const uint64_t index = seven(rng);
    ASSERT_LT(index, 7u);
    ++counts[index];
  }
  for (int count : counts) EXPECT_NEAR(count, 10000, 500);
  EXPECT_EQ(UniformIndex(1)(rng), 0u);
  EXPECT_THROW(UniformIndex(0), std::invalid_argument);
}

TEST(Bootstrap, UniformIndexRejectsTheIncompleteBlock) {
  // n = 2^63 + 1: only draws below n itself are whole blocks, so about half
  // of all draws are rejected and no index above n - 1 can come out.
  const uint64_t n = (uint64_t{1} << 63) + 1;
  std::mt19937_64 draws(5), rng(5);
  uint64_t expected;
  do {
    expected = draws();
  } while (expected >= n);
  EXPECT_EQ(UniformIndex(n)(rng), expected);
}

TEST(Bootstrap, MedianMatchesPercentileLinear) {
  for (std::vector<double> v :
       {std::vector<double>{3, 1, 2}, {4, 1, 3, 2}, {0.1, 0.7, 0.30000000000000004, 0.2}, {5}}) {
    std::vector<double> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(medianInPlace(v), percentileLinear(sorted, 50));
  }
}

// `runs` runs of `perRun` samples each, run i's level at center * offsets[i]
// and 1% noise within a run: unchanged code on a machine that drifts.
std::vector<double> driftingRuns(const std::vector<double>& offsets, size_t perRun,
                                 std::vector<int>* counts) {
  std::vector<double> samples;
  for (size_t i = 0; i < offsets.size(); ++i) {
    for (double s : normalSamples(offsets[i], 0.01, perRun, 100 + i)) samples.push_back(s);
    counts->push_back(static_cast<int>(perRun));
  }
  return samples;
}

TEST(PooledBootstrap, FewerThanTwoRunsIsThePlainBootstrap) {
  const std::vector<double> base = normalSamples(1.0, 0.02, 30, 1);
  const std::vector<double> test = normalSamples(1.03, 0.02, 30, 2);
  const MedianChange plain = bootstrapMedianChange(base, test);
  for (const std::vector<int>& runs : {std::vector<int>{}, std::vector<int>{30}}) {
    const MedianChange pooled = bootstrapPooledMedianChange(base, runs, test);
    EXPECT_EQ(pooled.pointChange, plain.pointChange);
    EXPECT_EQ(pooled.low, plain.low);
    EXPECT_EQ(pooled.high, plain.high);
  }
}

TEST(PooledBootstrap, ANewRunWithinTheSpreadOfThePooledRunsIsNotSignificant) {
  std::vector<int> counts;
  const std::vector<double> base = driftingRuns({0.96, 1.0, 1.03, 0.98, 1.05}, 30, &counts);
  const std::vector<double> test = normalSamples(1.06, 0.01, 30, 9);
  const MedianChange plain = bootstrapMedianChange(base, test);
  EXPECT_TRUE(plain.significant) << "samples alone call the drift a change: " << plain.low;
  const MedianChange pooled = bootstrapPooledMedianChange(base, counts, test);
  EXPECT_EQ(pooled.pointChange, plain.pointChange) << "the point change is on the samples";
  EXPECT_LT(pooled.low, 0.0);
  EXPECT_FALSE(pooled.significant);
  EXPECT_GT(pooled.high - pooled.low, plain.high - plain.low);
}

TEST(PooledBootstrap, ANewRunFarOutsideTheSpreadIsSignificant) {
  std::vector<int> counts;
  const std::vector<double> base = driftingRuns({0.96, 1.0, 1.03, 0.98, 1.05}, 30, &counts);
  const MedianChange slower =
      bootstrapPooledMedianChange(base, counts, normalSamples(1.3, 0.01, 30, 9));
  EXPECT_TRUE(slower.significant);
  EXPECT_GT(slower.low, 0.15);
  const MedianChange faster =
      bootstrapPooledMedianChange(base, counts, normalSamples(0.7, 0.01, 30, 9));
  EXPECT_LT(faster.high, 0.0);
}

TEST(PooledBootstrap, IsReproducibleAndChecksTheCounts) {
  std::vector<int> counts;
  const std::vector<double> base = driftingRuns({0.99, 1.01, 1.0}, 10, &counts);
  const std::vector<double> test = normalSamples(1.0, 0.01, 10, 9);
  const MedianChange a = bootstrapPooledMedianChange(base, counts, test);
  const MedianChange b = bootstrapPooledMedianChange(base, counts, test);
  EXPECT_EQ(a.low, b.low);
  EXPECT_EQ(a.high, b.high);
  EXPECT_THROW(bootstrapPooledMedianChange(base, {10, 10}, test), std::invalid_argument);
  EXPECT_THROW(bootstrapPooledMedianChange(base, {10, 20, 0}, test), std::invalid_argument);
}

}  // namespace
}  // namespace distbench::report
