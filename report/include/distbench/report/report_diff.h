// Comparing two reports series by series, for `distbench diff`, `distbench
// report --baseline` and the operator: which groups and rows pair up, their
// percentiles, the bootstrap interval on the change of the median, and which
// rows regressed. Pure: diff_table.h prints the result, the callers read the
// files.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "distbench/report/bootstrap.h"
#include "distbench/report/report.h"

namespace distbench::report {

// The reports measure different things (kinds, models, batch sizes, ...), so
// any number the diff printed would mislead. The message says what differs.
class IncomparableReports : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct DiffOptions {
  std::vector<int> percentiles{75, 95};  // each in [0, 100]
  BootstrapOptions bootstrap;
  // A row regresses when its median is slower by more than this many percent
  // and the interval lies above 0. Unset: nothing is judged.
  std::optional<double> thresholdPercent;
};

// One row found in both reports. The pointers are into the reports given to
// compareReports, which must outlive this.
struct RowDiff {
  const Series* base = nullptr;
  const Series* test = nullptr;
  std::vector<double> basePercentiles;  // seconds, one per DiffOptions::percentiles
  std::vector<double> testPercentiles;  // of the test samples as compared (testWorkScale)
  // base.workPerSample / test.workPerSample: epoch rows whose work differs
  // only by the batch generator's randomness are compared per unit of work,
  // every test sample scaled to base's work per epoch. 1 for all other rows.
  double testWorkScale = 1;
  MedianChange median;
  bool regressed = false;
};

struct GroupDiff {
  std::string group;
  std::string sampleOf;                  // of the group's rows: "iteration", "epoch", "op"
  std::string workUnit;                  // "examples" or "bytes"
  std::vector<RowDiff> rows;             // in the base report's order
  std::vector<std::string> onlyInBase;   // row labels
  std::vector<std::string> onlyInTest;   // row labels
  std::vector<std::string> notCompared;  // "1M/2R (ranks 2 vs 4)"
  // Rows compared per unit of work: "Trainer0 (examples per epoch 69.87 vs 69.19)".
  std::vector<std::string> perWork;
};

struct ReportDiff {
  std::vector<GroupDiff> groups;  // in the base report's order
  size_t comparedRows() const;
};

// Pairs groups by name and rows by label. Throws IncomparableReports when the
// kinds differ, when a group's key differs between the reports, or when the
// reports hold different groups.
ReportDiff compareReports(const Report& base, const Report& test, const DiffOptions& options);

// Percent change of time: positive means `test` is slower.
double percentChange(double base, double test);

// Whether a compared row regressed over DiffOptions::thresholdPercent (never
// without one).
bool anyRegression(const ReportDiff& diff);

// The compared row whose median changed most for the worse: the largest
// median.pointChange over every group (when every row got faster, the one
// that gained least), the first of equals in the diff's order. For a one-line
// summary (describeRow, diff_table.h). nullptr when no row was compared.
// With `group`, *group is set to the row's group (nullptr with the row).
const RowDiff* worstRow(const ReportDiff& diff, const GroupDiff** group = nullptr);

}  // namespace distbench::report
