#include "straggler_interval.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "attribution_rules.h"
#include "distbench/report/bootstrap.h"

namespace distbench::report::attribution_detail {
namespace {

std::string signedSeconds(double s) { return (s < 0 ? "-" : "+") + seconds(s < 0 ? -s : s); }

}  // namespace

StragglerInterval testStraggler(const std::vector<RankSamples>& input, double minExcess) {
  StragglerInterval out;
  // Only positive, finite samples: the interval is of a ratio to the
  // others' median, and a sample of no time (a request served in the same
  // microsecond, a timer that stepped back) carries nothing to resample.
  std::vector<RankSamples> ranks;
  for (const RankSamples& r : input) {
    RankSamples kept{r.rank, {}};
    for (double x : r.samples)
      if (std::isfinite(x) && x > 0) kept.samples.push_back(x);
    ranks.push_back(std::move(kept));
  }
  std::vector<const RankSamples*> measured;
  for (const RankSamples& r : ranks)
    if (!r.samples.empty()) measured.push_back(&r);
  if (measured.size() < 2) return out;
  const RankSamples* slowest = nullptr;
  for (const RankSamples* r : measured) {
    const double m = median(r->samples);
    if (slowest == nullptr || m > out.median) {
      slowest = r;
      out.median = m;
    }
  }
  std::vector<double> others;
  for (const RankSamples* r : measured)
    if (r != slowest) others.insert(others.end(), r->samples.begin(), r->samples.end());
  out.rank = slowest->rank;
  out.othersMedian = median(others);
  out.excess = out.median - out.othersMedian;
  out.minExcess = minExcess;
  if (!(out.othersMedian > 0)) return out;  // nothing to be relative to: no verdict
  BootstrapOptions options;
  options.confidence = kStragglerConfidence;
  const MedianChange change = bootstrapMedianChange(others, slowest->samples, options);
  out.low = change.low * out.othersMedian;
  out.high = change.high * out.othersMedian;
  out.significant = change.low > 0;
  // Named only when even the interval's low end matters: its point alone
  // would name a rank whose excess is as likely to be below the line (the
  // percentile interval of a median also runs narrow at a few dozen
  // samples, so its low end is the safer of the two).
  if (out.low >= minExcess && out.significant) {
    out.verdict = StragglerInterval::Verdict::Named;
  } else if (out.excess >= minExcess) {
    out.verdict = StragglerInterval::Verdict::Inconclusive;
  }
  return out;
}

std::string intervalEvidence(const StragglerInterval& s, const std::string& what,
                             const std::string& perWhat) {
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.2fx", s.othersMedian > 0 ? s.median / s.othersMedian : 0.0);
  char confidence[16];
  std::snprintf(confidence, sizeof confidence, "%.0f%%", kStragglerConfidence * 100);
  return what + " " + ratio + " the others' median (" + seconds(s.median) + " vs " +
         seconds(s.othersMedian) + " per " + perWhat + "; excess " + signedSeconds(s.excess) +
         ", " + confidence + " interval " + signedSeconds(s.low) + ".." + signedSeconds(s.high) +
         ", " + seconds(s.minExcess) + " needed to matter)";
}

const char* verdictName(StragglerInterval::Verdict v) {
  switch (v) {
    case StragglerInterval::Verdict::Named:
      return "named";
    case StragglerInterval::Verdict::Inconclusive:
      return "inconclusive";
    case StragglerInterval::Verdict::None:
      break;
  }
  return "none";
}

}  // namespace distbench::report::attribution_detail
