// What `distbench diff` prints, laid out like PyTorch's ddp/diff.py: the
// metadata of both reports side by side, then per group the test's time and
// rate at each percentile with the change from the base. Beyond diff.py, each
// row ends with the change of the median and its bootstrap interval.
//
// One sign convention throughout: changes are of time, so positive means the
// test is slower. (diff.py negates its percentile column; mixing both signs in
// one row would invite misreading.)
#pragma once

#include <string>

#include "distbench/report/report.h"
#include "distbench/report/report_diff.h"

namespace distbench::report {

// The header and one "key:  base  vs  test" line per metadata field, then a
// blank line.
std::string formatMetadata(const Report& base, const Report& test);

// "Benchmark: <group>", the column header, one line per compared row, notes
// for the rows that were not compared, then a blank line.
std::string formatGroup(const GroupDiff& group, const DiffOptions& options);

// With a threshold: one line naming the rows that regressed, or saying none
// did. Without one: "".
std::string formatRegressions(const ReportDiff& diff, const DiffOptions& options);

// One line for a Kubernetes condition message or a log, in the table's
// number format (the median and interval columns):
//   "<group> / <row>: median +12.3% (95% CI +8.1% .. +15.0%)"
std::string describeRow(const GroupDiff& group, const RowDiff& row, const DiffOptions& options);

// All of the above.
std::string formatDiff(const Report& base, const Report& test, const ReportDiff& diff,
                       const DiffOptions& options);

// Decimals that show `smallest` with `significantDigits` digits, at least
// `minDecimals` and at most 9, so small times do not print as 0.000s.
int decimalsFor(double smallest, int minDecimals, int significantDigits);

}  // namespace distbench::report
