// Summary statistics as numpy computes them: percentiles by linear
// interpolation between closest ranks (np.percentile's default), population
// standard deviation (np.std).
#pragma once

#include <cstddef>
#include <vector>

namespace distbench::report {

// `sorted` ascending and non-empty; p in [0, 100].
double percentileLinear(const std::vector<double>& sorted, double p);

struct Summary {
  size_t count = 0;
  double p50 = 0, p75 = 0, p90 = 0, p95 = 0, p99 = 0;
  double min = 0, max = 0, mean = 0, stdev = 0;
};

// Throws std::invalid_argument on an empty sample.
Summary summarize(std::vector<double> values);

}  // namespace distbench::report
