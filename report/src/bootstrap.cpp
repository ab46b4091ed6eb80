#include "distbench/report/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "distbench/report/percentiles.h"

namespace distbench::report {

UniformIndex::UniformIndex(uint64_t n) : n_(n) {
  if (n == 0) throw std::invalid_argument("UniformIndex: n must be >= 1");
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  // Draws above the last whole block of n values would make the low indices
  // more likely than the high ones. 2^64 mod n values are left over.
  const uint64_t leftOver = (kMax % n + 1) % n;
  lastAccepted_ = kMax - leftOver;
}

uint64_t UniformIndex::operator()(std::mt19937_64& rng) const {
  uint64_t draw;
  do {
    draw = rng();
  } while (draw > lastAccepted_);
  return draw % n_;
}

double medianInPlace(std::vector<double>& values) {
  const size_t n = values.size();
  const auto upper = values.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(values.begin(), upper, values.end());
  if (n % 2 == 1) return *upper;
  const double below = *std::max_element(values.begin(), upper);
  // percentileLinear's interpolation at t = 0.5, so both agree to the bit.
  return *upper - (*upper - below) * 0.5;
}

namespace {

void resample(const std::vector<double>& from, const UniformIndex& index, std::mt19937_64& rng,
              std::vector<double>& into) {
  into.resize(from.size());
  for (double& value : into) value = from[index(rng)];
}

void checkInputs(const std::vector<double>& base, const std::vector<double>& test,
                 const BootstrapOptions& options) {
  if (base.empty() || test.empty()) {
    throw std::invalid_argument("bootstrap of an empty sample");
  }
  for (double seconds : base) {
    if (!(seconds > 0)) throw std::invalid_argument("bootstrap: base samples must be positive");
  }
  if (options.resamples < 1) throw std::invalid_argument("bootstrap: resamples must be >= 1");
  if (!(options.confidence > 0 && options.confidence < 1)) {
    throw std::invalid_argument("bootstrap: confidence must be in (0, 1)");
  }
}

// The interval from the sorted resampled changes, and whether it excludes 0.
void setInterval(std::vector<double>& changes, const BootstrapOptions& options,
                 MedianChange& result) {
  std::sort(changes.begin(), changes.end());
  result.low = percentileLinear(changes, 50 * (1 - options.confidence));
  result.high = percentileLinear(changes, 50 * (1 + options.confidence));
  result.significant = result.low > 0 || result.high < 0;
}

// One pooled run: samples [begin, begin + count) of the pool.
struct Run {
  size_t begin = 0;
  size_t count = 0;
  UniformIndex index;
};

// Standard normal by Box-Muller from the generator's bits, so the draws are
// the same on every standard library (std::normal_distribution's are not).
double standardNormal(std::mt19937_64& rng) {
  auto unit = [&rng] { return (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53; };
  const double radius = std::sqrt(-2 * std::log(unit()));
  return radius * std::cos(2 * M_PI * unit());
}

// Student's t with `df` degrees of freedom: a normal over the root of a
// chi-square (the sum of df squared normals) divided by df.
double studentT(int df, std::mt19937_64& rng) {
  const double z = standardNormal(rng);
  double chiSquare = 0;
  for (int i = 0; i < df; ++i) {
    const double n = standardNormal(rng);
    chiSquare += n * n;
  }
  return z / std::sqrt(chiSquare / df);
}

}  // namespace

MedianChange bootstrapMedianChange(const std::vector<double>& base, const std::vector<double>& test,
                                   const BootstrapOptions& options) {
  checkInputs(base, test, options);
  std::vector<double> a = base, b = test;
  MedianChange result;
  result.pointChange = medianInPlace(b) / medianInPlace(a) - 1;

  std::mt19937_64 rng(options.seed);
  const UniformIndex baseIndex(base.size()), testIndex(test.size());
  std::vector<double> changes;
  changes.reserve(static_cast<size_t>(options.resamples));
  for (int i = 0; i < options.resamples; ++i) {
    resample(base, baseIndex, rng, a);
    resample(test, testIndex, rng, b);
    changes.push_back(medianInPlace(b) / medianInPlace(a) - 1);
  }
  setInterval(changes, options, result);
  return result;
}

MedianChange bootstrapPooledMedianChange(const std::vector<double>& base,
                                         const std::vector<int>& baseRuns,
                                         const std::vector<double>& test,
                                         const BootstrapOptions& options) {
  checkInputs(base, test, options);
  size_t total = 0;
  for (int n : baseRuns) {
    if (n < 1) throw std::invalid_argument("bootstrap: every pooled run needs a sample");
    total += static_cast<size_t>(n);
  }
  if (!baseRuns.empty() && total != base.size()) {
    throw std::invalid_argument("bootstrap: the pooled runs' counts add up to " +
                                std::to_string(total) + ", the pool has " +
                                std::to_string(base.size()) + " samples");
  }
  if (baseRuns.size() < 2) return bootstrapMedianChange(base, test, options);

  std::vector<double> a = base, b = test;
  MedianChange result;
  result.pointChange = medianInPlace(b) / medianInPlace(a) - 1;

  // The spread of the pooled runs' levels: the standard deviation of their
  // medians' logarithms (a relative spread, as the change is relative).
  std::vector<Run> runs;
  std::vector<double> logMedians;
  size_t begin = 0;
  for (int n : baseRuns) {
    const size_t count = static_cast<size_t>(n);
    std::vector<double> own(base.begin() + static_cast<std::ptrdiff_t>(begin),
                            base.begin() + static_cast<std::ptrdiff_t>(begin + count));
    runs.push_back({begin, count, UniformIndex(count)});
    logMedians.push_back(std::log(medianInPlace(own)));
    begin += count;
  }
  double mean = 0;
  for (double l : logMedians) mean += l;
  mean /= static_cast<double>(logMedians.size());
  double squares = 0;
  for (double l : logMedians) squares += (l - mean) * (l - mean);
  const int df = static_cast<int>(logMedians.size()) - 1;
  const double spread = std::sqrt(squares / df);

  std::mt19937_64 rng(options.seed);
  const UniformIndex runIndex(runs.size()), testIndex(test.size());
  std::vector<double> changes;
  changes.reserve(static_cast<size_t>(options.resamples));
  for (int i = 0; i < options.resamples; ++i) {
    a.clear();
    for (size_t r = 0; r < runs.size(); ++r) {
      const Run& run = runs[runIndex(rng)];
      for (size_t k = 0; k < run.count; ++k) a.push_back(base[run.begin + run.index(rng)]);
    }
    resample(test, testIndex, rng, b);
    const double offset = std::exp(spread * studentT(df, rng));
    changes.push_back(medianInPlace(b) / offset / medianInPlace(a) - 1);
  }
  setInterval(changes, options, result);
  return result;
}

}  // namespace distbench::report
