#include "distbench/report/percentiles.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace distbench::report {

double percentileLinear(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) throw std::invalid_argument("percentile of an empty sample");
  const double q = p / 100.0;
  const double virtualIndex = q * static_cast<double>(sorted.size() - 1);
  const double below = std::floor(virtualIndex);
  const size_t lo = static_cast<size_t>(below);
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double t = virtualIndex - below;
  const double a = sorted[lo], b = sorted[hi];
  // numpy's _lerp: interpolate from the nearer end, which keeps the result
  // monotonic and exact at t = 1.
  const double diff = b - a;
  return t >= 0.5 ? b - diff * (1.0 - t) : a + diff * t;
}

Summary summarize(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("summary of an empty sample");
  std::sort(values.begin(), values.end());
  Summary s;
  s.count = values.size();
  s.p50 = percentileLinear(values, 50);
  s.p75 = percentileLinear(values, 75);
  s.p90 = percentileLinear(values, 90);
  s.p95 = percentileLinear(values, 95);
  s.p99 = percentileLinear(values, 99);
  s.min = values.front();
  s.max = values.back();
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / static_cast<double>(values.size());
  double squares = 0;
  for (double v : values) squares += (v - s.mean) * (v - s.mean);
  s.stdev = std::sqrt(squares / static_cast<double>(values.size()));
  return s;
}

}  // namespace distbench::report
