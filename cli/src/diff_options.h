// The flags that set how two reports are compared (--percentiles,
// --threshold, --confidence, --resamples, --seed), shared by `distbench diff`
// and `distbench report --baseline` so that a flag means the same in both and
// the page shows the same rows and intervals the diff prints.
#pragma once

#include <vector>

#include "arg_parser.h"
#include "report_diff.h"

namespace distbench::cli {

// Each takes a value.
std::vector<FlagSpec> diffOptionFlags();

// Throws UsageError naming the flag for a value out of range.
DiffOptions diffOptionsFrom(const ParsedArgs& parsed);

// Whether a compared row regressed over --threshold (never without one).
bool anyRegression(const ReportDiff& diff);

}  // namespace distbench::cli
