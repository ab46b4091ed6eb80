// A series of runs of one benchmark replayed as a rolling baseline would
// have judged them (baseline_pool.h): each run compared with the pool of the
// up to N unregressed runs before it, then the pool moved on by nextPool.
// What `distbench report --trend` draws and prints. Pure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "distbench/report/baseline_pool.h"
#include "distbench/report/report_diff.h"

namespace distbench::report {

// One row of one run, against the pool before it.
struct TrendPoint {
  std::string group;
  std::string row;
  double p50 = 0;  // seconds, of the run's samples
  // Against the pool (absent for the first run, or where the pool lacks the
  // row): the pool's median, the line a regression must cross
  // (median × (1 + threshold)), and the comparison's change and interval.
  std::optional<double> baselineP50;
  std::optional<double> regressionLine;
  std::optional<MedianChange> change;
  bool regressed = false;
};

struct TrendRun {
  std::string name;
  PoolVerdict verdict = PoolVerdict::NoBaseline;
  // The runs it was compared with, oldest first; empty where it was not
  // (poolJudges).
  std::vector<std::string> pool;
  bool entered = false;            // joined the pool for the runs after it
  std::string note;                // why it was not compared, where it was not
  std::vector<TrendPoint> points;  // in the run's series order
};

struct TrendOptions {
  int baselineRuns = 5;  // N, >= 1
  DiffOptions diff;      // thresholdPercent must be set
};

// Runs oldest first. Throws std::invalid_argument for baselineRuns < 1 or no
// threshold; ReportError where a pool cannot be made (poolReports).
std::vector<TrendRun> replayTrend(const std::vector<PooledRun>& runs, const TrendOptions& options);

// The row to name in a one-line summary: of the regressed rows, or where
// none regressed of every compared row, the one whose median changed most
// for the worse. nullptr when no row was compared.
const TrendPoint* worstPoint(const TrendRun& run);

// "Regression", "NoRegression", "NoBaseline", "Incomparable": the words the
// operator's status uses.
std::string verdictName(PoolVerdict verdict);

}  // namespace distbench::report
