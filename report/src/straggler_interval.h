// The straggler test on per-step samples: a rank is named only when a
// bootstrap interval of its excess over the others' median lies above zero
// (the difference is more than the run's own noise) and above a share of
// the step worth naming. A ratio over a fixed line cannot tell a
// rank that is slower from one that was unlucky in a few steps on a loaded
// machine; an interval can, and says "inconclusive" when it cannot.
// Private to the report library (attribution_*.cpp).
#pragma once

#include <string>
#include <vector>

namespace distbench::report::attribution_detail {

// The step share an excess must reach to be named: below it a rank that is
// really slower holds the others back by too little to matter. Identical
// ranks on 2 shared cores differ for a whole run by more than their steps
// vary (in benchmarks/straggler's A/A runs the slowest's median own work
// was up to 0.19 of the step above the others'), which an interval over
// one run's steps does not see: so a rank is named only when the interval's
// low end clears this line (docs/performance.md, "Straggler: false alarms
// and misses": none of 54 A/A runs named a rank).
inline constexpr double kStragglerMinStepShare = 0.1;
// The interval's confidence. The slowest of n ranks is tested, the largest
// of n - 1 differences under no effect; 99 % keeps that selection's false
// alarms near 5 % up to about five ranks.
inline constexpr double kStragglerConfidence = 0.99;

// One rank's samples of the measure compared: one per step (DDP iteration,
// HybridDDPRPC epoch or parameter-server step), seconds.
struct RankSamples {
  int rank = 0;
  std::vector<double> samples;
};

struct StragglerInterval {
  enum class Verdict { None, Named, Inconclusive };
  Verdict verdict = Verdict::None;
  int rank = 0;              // the slowest rank by median, tested against the others
  double median = 0;         // its median, seconds
  double othersMedian = 0;   // the median of the others' pooled samples
  double excess = 0;         // median - othersMedian, seconds per sample
  double low = 0, high = 0;  // the interval of the excess, seconds per sample
  double minExcess = 0;      // what `excess` had to reach, seconds per sample
  bool significant = false;  // low > 0
};

// Compares the rank with the largest median against the others' pooled
// samples (bootstrapMedianChange, kStragglerConfidence). Named: the
// interval's low end is above 0 and at least minExcess (the excess is real
// and matters). Inconclusive: the point excess is at least minExcess but
// the interval reaches below it. None otherwise, or with fewer than two
// ranks that have samples. `minExcess` is in the samples' unit.
StragglerInterval testStraggler(const std::vector<RankSamples>& ranks, double minExcess);

// "own work 1.42x the others' median (12.1 ms vs 8.5 ms per batch; excess
// +3.6 ms, 99 % interval +2.9..+4.4 ms, at least 1.0 ms to be named)":
// `what` names the measure, `perWhat` its unit.
std::string intervalEvidence(const StragglerInterval& s, const std::string& what,
                             const std::string& perWhat);

// "named" | "none" | "inconclusive", as the report's stragglerCheck.verdict.
const char* verdictName(StragglerInterval::Verdict v);

}  // namespace distbench::report::attribution_detail
