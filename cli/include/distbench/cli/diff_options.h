// The flags that set how two reports are compared (--percentiles,
// --threshold, --confidence, --resamples, --seed), shared by `distbench diff`
// and `distbench report --baseline` so that a flag means the same in both and
// the page shows the same rows and intervals the diff prints.
#pragma once

#include <vector>

#include "distbench/cli/arg_parser.h"
#include "distbench/report/report_diff.h"

namespace distbench::cli {

// Each takes a value.
std::vector<FlagSpec> diffOptionFlags();

// Throws UsageError naming the flag for a value out of range.
report::DiffOptions diffOptionsFrom(const ParsedArgs& parsed);

}  // namespace distbench::cli
