// Why a run is as fast as it is, from the report alone: per row, whether
// the step is bound by compute or by communication (the share of the step
// in each phase), the rank the others wait for (the straggler), the link
// whose traffic is slowest (only where `distbench run` shaped links and
// wrote their counters in `local`), and what the step would be if that rank
// or link were as fast as the rest. The rules and their thresholds are in
// docs/report-schema.md#attribution; they read only what the report holds
// and say so when a figure they need is absent, rather than guessing.
#pragma once

#include <string>
#include <vector>

#include "distbench/report/report.h"
#include "distbench/report/row_attribution.h"

namespace distbench::report {

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
