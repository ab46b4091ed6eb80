// How sure a change of the median is: a percentile bootstrap confidence
// interval on median(test) / median(base) - 1. Two runs of the same code
// differ by noise; the interval says whether a difference is larger than that
// noise, which a bare percent change cannot.
//
// Reproducible everywhere: the resampling draws from std::mt19937_64, whose
// output the standard fixes, through UniformIndex below rather than
// std::uniform_int_distribution, whose output differs between standard
// libraries. The same samples, options and seed give the same interval on
// every platform.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace distbench::report {

inline constexpr uint64_t kDefaultBootstrapSeed = 1;

struct BootstrapOptions {
  int resamples = 2000;
  double confidence = 0.95;  // of the interval, in (0, 1)
  uint64_t seed = kDefaultBootstrapSeed;
};

// Relative changes: 0.1 is 10% more time in the test.
struct MedianChange {
  double pointChange = 0;  // on the samples themselves, not resampled
  double low = 0;
  double high = 0;
  bool significant = false;  // the interval excludes 0
};

// Resamples `base` and `test` independently with replacement, `resamples`
// times, and takes the (1 - c) / 2 and (1 + c) / 2 percentiles (linear
// interpolation) of the resampled changes. Throws std::invalid_argument for
// an empty sample, a base sample that is not positive (the change would divide
// by zero), resamples < 1 or a confidence outside (0, 1).
MedianChange bootstrapMedianChange(const std::vector<double>& base, const std::vector<double>& test,
                                   const BootstrapOptions& options = {});

// The change of one new run against a pool of earlier runs of the same
// benchmark (a rolling baseline), where `baseRuns` counts how many of `base`
// each pooled run gave, in order. Runs of unchanged code differ by more than
// their samples say (another process on the machine, where the allocator
// and the scheduler put things), so an interval from samples alone would
// call run-to-run noise a change. Each resample therefore
//   - draws the pool's runs with replacement, then each drawn run's samples
//     with replacement (a hierarchical bootstrap): the uncertainty of the
//     pool's median over runs;
//   - draws the test's samples with replacement, and divides its median by
//     a run-to-run offset exp(s * T): s the standard deviation of the log
//     medians of the pooled runs, T Student's t with (runs - 1) degrees of
//     freedom. The new run is one run too, and may sit as far from the
//     others as they sit from each other; the t (the classical prediction
//     interval for one more observation) reaches past the largest offset
//     seen so far, as a new run does in one case of (runs + 1), and is the
//     wider the fewer runs the spread was learnt from.
// The point change is on the samples as given, as bootstrapMedianChange's.
// Fewer than two runs: no run-to-run spread to learn from, and the result
// is bootstrapMedianChange's. Throws as bootstrapMedianChange does, and for
// counts that are not positive or do not add up to base.size().
MedianChange bootstrapPooledMedianChange(const std::vector<double>& base,
                                         const std::vector<int>& baseRuns,
                                         const std::vector<double>& test,
                                         const BootstrapOptions& options = {});

// Uniform in [0, n), n >= 1, without modulo bias: draws that fall in the
// incomplete last block of n values are rejected and drawn again. A class so
// the rejection bound, a 64-bit division, is computed once per sample set
// rather than once per draw.
class UniformIndex {
 public:
  explicit UniformIndex(uint64_t n);
  uint64_t operator()(std::mt19937_64& rng) const;

 private:
  uint64_t n_;
  uint64_t lastAccepted_;
};

// The median as percentileLinear(sorted, 50) computes it, in linear time.
// Reorders `values`, which must not be empty.
double medianInPlace(std::vector<double>& values);

}  // namespace distbench::report
