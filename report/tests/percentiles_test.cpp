#include "distbench/report/percentiles.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

namespace distbench::report {
namespace {

// Expected values printed by numpy 1.24 (np.percentile, np.std, np.mean).
struct Case {
  std::vector<double> values;
  double p50, p75, p90, p95, p99, stdev, mean;
};

const Case kCases[] = {
    {{0.376, 0.384, 0.390, 0.396, 0.377, 0.401, 0.369, 0.512, 0.388, 0.379, 0.381},
     0.384,
     0.393,
     0.401,
     0.4565,
     0.5009,
     0.037813155260356175,
     0.3957272727272727},
    {{3.0, 1.0, 2.0}, 2.0, 2.5, 2.8, 2.9, 2.98, 0.816496580927726, 2.0},
    {{0.1, 0.2, 0.30000000000000004, 0.4, 0.5, 0.6, 0.7},
     0.4,
     0.55,
     0.64,
     0.6699999999999999,
     0.694,
     0.19999999999999996,
     0.39999999999999997},
    {{5.0}, 5.0, 5.0, 5.0, 5.0, 5.0, 0.0, 5.0},
};

TEST(Percentiles, MatchNumpyBitForBit) {
  for (const auto& c : kCases) {
    Summary s = summarize(c.values);
    // Exact: numpy's lerp picks the nearer end, and so must we.
    EXPECT_EQ(s.p50, c.p50);
    EXPECT_EQ(s.p75, c.p75);
    EXPECT_EQ(s.p90, c.p90);
    EXPECT_EQ(s.p95, c.p95);
    EXPECT_EQ(s.p99, c.p99);
    // numpy sums pairwise; allow the last bits to differ.
    EXPECT_NEAR(s.stdev, c.stdev, 1e-15);
    EXPECT_NEAR(s.mean, c.mean, 1e-15);
    EXPECT_EQ(s.count, c.values.size());
    EXPECT_EQ(s.min, *std::min_element(c.values.begin(), c.values.end()));
    EXPECT_EQ(s.max, *std::max_element(c.values.begin(), c.values.end()));
  }
}

TEST(Percentiles, EndsAreMinAndMax) {
  std::vector<double> v{1.5, 2.5, 9.0};
  EXPECT_EQ(percentileLinear(v, 0), 1.5);
  EXPECT_EQ(percentileLinear(v, 100), 9.0);
}

TEST(Percentiles, EmptySampleIsAnError) { EXPECT_THROW(summarize({}), std::invalid_argument); }

}  // namespace
}  // namespace distbench::report
