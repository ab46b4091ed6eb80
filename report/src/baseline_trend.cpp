#include "distbench/report/baseline_trend.h"

#include <algorithm>
#include <stdexcept>

#include "distbench/report/percentiles.h"

namespace distbench::report {
namespace {

double medianOf(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  return percentileLinear(samples, 50);
}

std::vector<TrendPoint> pointsOf(const Report& run) {
  std::vector<TrendPoint> points;
  for (const Series& s : run.series) {
    TrendPoint point;
    point.group = s.group;
    point.row = s.row;
    point.p50 = medianOf(s.samples);
    points.push_back(point);
  }
  return points;
}

TrendPoint* findPoint(std::vector<TrendPoint>& points, const std::string& group,
                      const std::string& row) {
  for (TrendPoint& p : points) {
    if (p.group == group && p.row == row) return &p;
  }
  return nullptr;
}

void addComparison(TrendRun& out, const ReportDiff& diff, double thresholdPercent) {
  for (const GroupDiff& group : diff.groups) {
    for (const RowDiff& row : group.rows) {
      TrendPoint* point = findPoint(out.points, group.group, row.base->row);
      if (!point) continue;
      // In the pool's units: a per-work scaled test compares as scaled.
      const double poolMedian = medianOf(row.base->samples);
      point->baselineP50 = poolMedian / row.testWorkScale;
      point->regressionLine = *point->baselineP50 * (1 + thresholdPercent / 100);
      point->change = row.median;
      point->regressed = row.regressed;
    }
  }
}

}  // namespace

const TrendPoint* worstPoint(const TrendRun& run) {
  const TrendPoint* worst = nullptr;
  for (const TrendPoint& point : run.points) {
    if (!point.change) continue;
    const bool better = !worst || (point.regressed && !worst->regressed) ||
                        (point.regressed == worst->regressed &&
                         point.change->pointChange > worst->change->pointChange);
    if (better) worst = &point;
  }
  return worst;
}

std::string verdictName(PoolVerdict verdict) {
  switch (verdict) {
    case PoolVerdict::NoBaseline:
      return "NoBaseline";
    case PoolVerdict::NoRegression:
      return "NoRegression";
    case PoolVerdict::Regression:
      return "Regression";
    case PoolVerdict::Incomparable:
      return "Incomparable";
  }
  return "?";
}

std::vector<TrendRun> replayTrend(const std::vector<PooledRun>& runs, const TrendOptions& options) {
  if (options.baselineRuns < 1) {
    throw std::invalid_argument("baseline runs must be at least 1, not " +
                                std::to_string(options.baselineRuns));
  }
  if (!options.diff.thresholdPercent) throw std::invalid_argument("the trend needs a threshold");
  std::vector<TrendRun> trend;
  std::vector<PooledRun> pool;
  for (const PooledRun& run : runs) {
    TrendRun out;
    out.name = run.name;
    out.points = pointsOf(run.report);
    if (poolJudges(pool, options.baselineRuns)) {
      for (const PooledRun& p : pool) out.pool.push_back(p.name);
      const Report base = poolReports(reportsOf(pool));
      try {
        const ReportDiff diff = compareReports(base, run.report, options.diff);
        out.verdict = poolVerdictOf(diff);
        addComparison(out, diff, *options.diff.thresholdPercent);
        if (out.verdict == PoolVerdict::Incomparable) out.note = "no row could be compared";
      } catch (const IncomparableReports& error) {
        out.verdict = PoolVerdict::Incomparable;
        out.note = error.what();
      }
    }
    PoolStep step = nextPool(pool, run, out.verdict, options.baselineRuns);
    out.entered = step.entered;
    if (step.restarted && out.note.empty()) {
      out.note = "measures something else than the runs before it: the baseline starts again";
    }
    pool = std::move(step.pool);
    trend.push_back(std::move(out));
  }
  return trend;
}

}  // namespace distbench::report
