// Why a run is as fast as it is, from the report alone: per row, whether
// the step is bound by compute or by communication (the share of the step
// in each phase), the rank the others wait for (the straggler), the link
// whose traffic is slowest (only where `distbench run` shaped links and
// wrote their counters in `local`), and what the step would be if that rank
// or link were as fast as the rest. The rules and their thresholds are in
// docs/report-schema.md#attribution; they read only what the report holds
// and say so when a figure they need is absent, rather than guessing.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "distbench/report/report.h"

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

struct Attribution {
  std::vector<RowAttribution> rows;
  std::string summary;  // one line, at most kSummaryLimit bytes
};

inline constexpr size_t kSummaryLimit = 300;

// Reads resultsJson, series and, where present, localJson. Never throws for
// a figure that is missing (an older report, a kind without per-rank data):
// the row says what it could not judge. Throws ReportError only for JSON
// that is not JSON.
Attribution attribute(const Report& report);

// {"summary": "...", "rows": [...]} as docs/report-schema.md describes it.
std::string attributionToJson(const Attribution& attribution);

// The phases of `shares` in the order a step runs them ("other" last).
std::vector<std::string> phasesInStepOrder(const RowAttribution& row);
// The names of the phases counted as exposed communication.
bool isCommunicationPhase(const std::string& phase);

// Lines for under the result table, each ending in a newline; the last one
// is the summary.
std::string formatAttributionFooter(const Attribution& attribution);

}  // namespace distbench::report
