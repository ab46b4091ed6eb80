// A rolling baseline: the last N successful, unregressed runs of one
// benchmark, pooled into one report that a new run is compared with
// (compareReports, which resamples a pool run by run: bootstrap.h). The
// operator keeps the pool of a DistBenchmarkSchedule in a ConfigMap
// (runs.json, baseline.json); `distbench report --trend` replays it over a
// series of report files. Both take the same rule from here: nextPool.
#pragma once

#include <string>
#include <vector>

#include "distbench/report/report.h"
#include "distbench/report/report_diff.h"

namespace distbench::report {

// One run of the pool: its name (the DistBenchmark's, or the report file's)
// and its report, trimmed (trimmedForBaseline).
struct PooledRun {
  std::string name;
  Report report;
};

// One report whose rows pool the rows of `runs` (oldest first): rows matched
// by group and row label, samples concatenated in the order of the runs, and
// Series::runSamples saying how many each run gave. Envelope fields (kind,
// versions, host, topology, ...) are the newest run's; the name says how many
// runs are pooled. Epoch rows (whose work per epoch varies by chance) are
// scaled to the oldest run's work per epoch, as compareReports scales a test.
// Throws ReportError, naming the run and the group or row, for no runs, kinds
// that differ, a group whose key differs, or a row that measured something
// else (ranks, sampleOf, workUnit, or a fixed workPerSample that differs).
Report poolReports(const std::vector<Report>& runs);

// What a comparison needs of a report and nothing else, so that N runs fit a
// ConfigMap: series, kind, name, host, versions, backend, device, topology,
// seed, bucketCapMB. configJson and resultsJson become "{}";
// attributionJson and localJson are dropped.
Report trimmedForBaseline(const Report& report);

// runs.json: [{"name": ..., "report": <report JSON object>}, ...], oldest
// first. parseRunsJson throws ReportError naming `source` and the entry
// ("runs.json: [2].report.series[0].samples: ...").
std::string runsJson(const std::vector<PooledRun>& runs);
std::vector<PooledRun> parseRunsJson(const std::string& json,
                                     const std::string& source = "runs.json");

// How a new run's comparison with the pool came out.
enum class PoolVerdict {
  NoBaseline,    // not compared: the pool is empty, or too small to judge (poolJudges)
  NoRegression,  // compared, no row regressed
  Regression,    // compared, a row regressed
  Incomparable,  // the benchmark changed (IncomparableReports, or no row compared)
};

// Regression when a row regressed, Incomparable when no row was compared,
// else NoRegression.
PoolVerdict poolVerdictOf(const ReportDiff& diff);

struct PoolStep {
  bool entered = false;         // the new run joined the pool
  bool restarted = false;       // the old runs were dropped: they measured something else
  std::vector<PooledRun> pool;  // oldest first, at most maxRuns
};

// The rule the operator and `distbench report --trend` share: a run enters
// the pool unless it regressed (a regression must not become the baseline
// the next run is judged by, or a slowdown would be accepted after one
// run); an incomparable run starts a new pool of itself, and so does one
// that entered uncompared (NoBaseline) but cannot pool with the runs before
// it (poolReports refuses them); the pool keeps the
// newest maxRuns runs. `run.report` is stored trimmed. Throws
// std::invalid_argument for maxRuns < 1.
PoolStep nextPool(const std::vector<PooledRun>& pool, const PooledRun& run, PoolVerdict verdict,
                  int maxRuns);

// Whether a new run is judged against `pool`: once it holds two runs (or
// the one a pool of maxRuns 1 keeps). One run says nothing of how much runs
// of unchanged code differ, and judged by it alone a second run of the same
// code is flagged as often as the machine drifts by more than the threshold.
// Until then a run's verdict is NoBaseline, and it joins the pool.
bool poolJudges(const std::vector<PooledRun>& pool, int maxRuns);

// The reports of a pool, for poolReports.
std::vector<Report> reportsOf(const std::vector<PooledRun>& pool);

}  // namespace distbench::report
