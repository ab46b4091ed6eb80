// One row's attribution (attribution.h): its bound, straggler, slow link
// and what-if, and the thresholds the rules judge them by. Apart from
// attribution.h so that the rules (src/attribution_rules.h), which
// attribution.cpp includes, include these and not the header of the whole
// attribution that includes them.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>

namespace distbench::report {

// Communication-bound when the exposed communication (what no compute hid)
// is more than this share of the mean step; compute-bound below kComputeBound.
inline constexpr double kCommunicationBound = 0.2;
inline constexpr double kComputeBound = 0.05;
// Reports from before the per-step samples only (the fallback rule,
// attribution_rules.h; the test on samples is straggler_interval.h): a
// straggler computes more than this times the median of the others.
inline constexpr double kStragglerFactor = 1.1;
// ... or this, on a CPU run with more ranks than the master's host has
// logical CPUs: ranks then share cores, and the scheduler alone makes
// identical ranks differ (measured: 1.2x between two unshaped smallcnn
// trainers on 2 cores; a trainer capped at 25 % of a CPU: 2x and more).
inline constexpr double kSharedCoresStragglerFactor = 1.5;

struct Straggler {
  int rank = 0;
  std::string name;          // "trainer2", "ps0", as the report names ranks
  double excessSeconds = 0;  // per sample of the row (its series' sampleOf)
  std::string evidence;      // the figures that named it
};

// What the straggler test concluded for a row, whether it named a rank or
// not: a reader can then tell "nobody is slower" from "someone may be, but
// the run cannot show it" from "this rank does more work by design".
struct StragglerCheck {
  // "named" | "none" | "inconclusive" | "byDesign"
  std::string verdict;
  std::string evidence;  // each comparison's figures and interval, or why there was none
  // The per-step timing test's own verdict, before the CPU throttle counter
  // (findStarved) is read: what benchmarks/straggler scores separately.
  std::string timingVerdict;
  std::string timingName;  // the rank the timing test named, "" for none
};

struct SlowLink {
  int rank = 0;
  std::string name;
  double bitsPerSecond = 0;        // its link's rate (shaped, or as measured)
  double othersBitsPerSecond = 0;  // the rate the what-if gives it; 0: unknown (unshaped)
  std::string evidence;
};

struct RowAttribution {
  std::string group, row;  // as in series
  std::string sampleOf;    // the series' unit: every time of this row is per one of these
  // "compute" | "communication" | "mixed", or "unknown" where the report
  // has no phase timings for the row.
  std::string bound;
  double stepSeconds = 0;                // p50 of the row's series
  std::map<std::string, double> shares;  // phase -> share of the mean step (0..1)
  // The phases in which a rank computes nothing while it waits for others
  // (allreduceWait; HybridDDPRPC lookup and push too), as one share: what
  // `bound` is judged by. Absent where `bound` is "unknown" or by definition.
  std::optional<double> exposedShare;
  std::optional<Straggler> straggler;
  // Absent where nobody was compared (one rank, a row without DDP).
  std::optional<StragglerCheck> stragglerCheck;
  std::optional<SlowLink> link;
  std::optional<double>
      whatIfSeconds;   // predicted step if the straggler/link were as fast as the rest
  std::string whatIf;  // "if trainer2 were as fast as the others"
  std::string note;    // what the rules could not judge, and why
};

}  // namespace distbench::report
