// The trend of a series of runs (`distbench report --trend`): each row's p50
// per run, the rolling baseline each run was judged by (the pool's median and
// the line a regression must cross) and the runs that regressed. Everything
// is from replayTrend (baseline_trend.h), the rule the operator's schedules
// follow; nothing is compared here.
#include <string>
#include <vector>

#include "distbench/cli/report_page/html_table.h"
#include "distbench/cli/report_page/html_text.h"
#include "distbench/cli/report_page/page_numbers.h"
#include "distbench/cli/report_page/report_page_sections.h"
#include "distbench/report/baseline_trend.h"

namespace distbench::cli {
namespace {

using report::TrendPoint;
using report::TrendRun;
using vl::arr;
using vl::field;
using vl::Json;
using vl::num;
using vl::obj;
using vl::str;

std::string seriesLabel(const TrendPoint& point) { return point.group + " · " + point.row; }

std::string changeText(const report::MedianChange& change) {
  return formatChange(change.pointChange * 100) + " [" + formatChange(change.low * 100) + ", " +
         formatChange(change.high * 100) + "]";
}

// One point per run and row; the baseline fields are null where the run had
// no pool, so the band starts at the second run.
std::vector<Json> pointsOf(const std::vector<TrendRun>& trend) {
  std::vector<Json> points;
  for (size_t i = 0; i < trend.size(); ++i) {
    const TrendRun& run = trend[i];
    for (const TrendPoint& point : run.points) {
      const bool compared = point.baselineP50.has_value();
      points.push_back(obj({
          {"series", str(seriesLabel(point))},
          {"index", Json::number(static_cast<int>(i + 1))},
          {"run", str(run.name)},
          {"p50", num(point.p50)},
          {"baseline", compared ? num(*point.baselineP50) : Json::null()},
          {"line", compared ? num(*point.regressionLine) : Json::null()},
          {"change", point.change ? num(point.change->pointChange * 100) : Json::null()},
          {"low", point.change ? num(point.change->low * 100) : Json::null()},
          {"high", point.change ? num(point.change->high * 100) : Json::null()},
          {"poolRuns", Json::number(static_cast<int>(run.pool.size()))},
          {"verdict", str(point.regressed ? "regression"
                          : compared      ? "no regression"
                                          : "no baseline")},
      }));
    }
  }
  return points;
}

Chart trendChart(const std::vector<TrendRun>& trend, const report::TrendOptions& options) {
  const Json x = field("index", "ordinal", "run (oldest first)");
  const Json tooltip = arr(
      {vl::tooltip("run", "run"), vl::tooltip("series", "row"),
       vl::tooltip("p50", "p50 (s)", ".4~s"),
       vl::tooltip("baseline", "baseline median (s)", ".4~s"),
       vl::tooltip("line", "regression line (s)", ".4~s"),
       vl::tooltip("change", "median change %", "+.1f"),
       vl::tooltip("low", "interval low %", "+.1f"), vl::tooltip("high", "interval high %", "+.1f"),
       vl::tooltip("poolRuns", "runs in the baseline", "d"), vl::tooltip("verdict", "verdict")});
  const Json y =
      field("p50", "quantitative", "seconds", {{"scale", obj({{"zero", Json::boolean(false)}})}});
  const Json verdictColor =
      field("verdict", "nominal", "verdict",
            {{"scale", obj({{"domain", vl::strings({"regression", "no regression", "no baseline"})},
                            {"range", vl::strings({"#d62728", "#1f77b4", "#7f7f7f"})}})}});
  const Json hasBaseline = obj({{"filter", str("isValid(datum.baseline)")}});
  std::vector<Json> layers = {
      // The band: from the pool's median up to where a regression starts.
      obj({{"transform", arr({hasBaseline})},
           {"mark", obj({{"type", str("area")},
                         {"opacity", Json::number(0.25)},
                         {"color", str("#2ca02c")},
                         {"interpolate", str("step")}})},
           {"encoding", obj({{"x", x},
                             {"y", field("baseline", "quantitative", "seconds")},
                             {"y2", obj({{"field", str("line")}})}})}}),
      obj({{"transform", arr({hasBaseline})},
           {"mark", obj({{"type", str("line")},
                         {"color", str("#2ca02c")},
                         {"strokeDash", arr({num(4), num(3)})},
                         {"interpolate", str("step")}})},
           {"encoding", obj({{"x", x}, {"y", field("baseline", "quantitative", "seconds")}})}}),
      obj({{"mark", obj({{"type", str("line")}, {"color", str("#555")}})},
           {"encoding", obj({{"x", x}, {"y", y}})}}),
      obj({{"mark", obj({{"type", str("point")},
                         {"filled", Json::boolean(true)},
                         {"size", Json::number(70)},
                         {"opacity", Json::number(1)}})},
           {"encoding", obj({{"x", x}, {"y", y}, {"color", verdictColor}, {"tooltip", tooltip}})}}),
  };
  Json spec = obj({
      {"title", str("p50 per run, with the rolling baseline of the up to " +
                    std::to_string(options.baselineRuns) + " runs before it (threshold " +
                    formatNumber(*options.diff.thresholdPercent) + "%)")},
      {"data", obj({{"values", arr(pointsOf(trend))}})},
      {"facet", obj({{"row", field("series", "nominal", "")}})},
      {"spec",
       obj({{"width", Json::number(640)}, {"height", Json::number(140)}, {"layer", arr(layers)}})},
      {"resolve", obj({{"scale", obj({{"y", str("independent")}})}})},
  });
  return {"trend-p50", std::move(spec)};
}

std::string runsTable(const std::vector<TrendRun>& trend) {
  HtmlTable table({"#", "run", "verdict", "compared with", "worst row", "median change [interval]",
                   "joined the baseline"});
  for (size_t i = 0; i < trend.size(); ++i) {
    const TrendRun& run = trend[i];
    const TrendPoint* worst = report::worstPoint(run);
    std::string pool = run.pool.empty()
                           ? "(nothing)"
                           : std::to_string(run.pool.size()) +
                                 (run.pool.size() == 1 ? " run: " : " runs: ") + run.pool.front() +
                                 (run.pool.size() > 1 ? " .. " + run.pool.back() : "");
    std::string verdict = report::verdictName(run.verdict);
    if (!run.note.empty()) verdict += " (" + run.note + ")";
    table.addRow({std::to_string(i + 1), run.name, verdict, pool, worst ? seriesLabel(*worst) : "",
                  worst ? changeText(*worst->change) : "", run.entered ? "yes" : "no"},
                 run.verdict == report::PoolVerdict::Regression ? "regressed" : "");
  }
  return table.html();
}

}  // namespace

PageSection trendSection(const std::vector<TrendRun>& trend, const report::TrendOptions& options) {
  PageSection section{"trend", "Trend against the rolling baseline", "", {}};
  const std::string threshold = formatNumber(*options.diff.thresholdPercent) + "%";
  std::string html =
      "<p>" + std::to_string(trend.size()) +
      " runs, oldest first. Each is compared with the pooled samples of the up to " +
      std::to_string(options.baselineRuns) +
      " runs before it that did not regress, as a DistBenchmarkSchedule compares its runs: the "
      "bootstrap interval on the change of the median resamples the pooled runs, then their "
      "samples. A run regresses when its median is slower by more than " +
      threshold +
      " and the whole interval lies above 0; a regressed run does not join the baseline.</p>\n";
  size_t regressed = 0;
  for (const TrendRun& run : trend) regressed += run.verdict == report::PoolVerdict::Regression;
  html += "<p class=\"verdict " + std::string(regressed > 0 ? "bad" : "good") + "\">" +
          htmlEscape(std::to_string(regressed) + " of " + std::to_string(trend.size()) +
                     " runs regressed over " + threshold) +
          "</p>\n";
  section.charts.push_back(trendChart(trend, options));
  html += chartFigure(section.charts.back(),
                      "Each row's p50 per run (dots; red: the run regressed). The dashed line is "
                      "the median of the baseline the run was compared with, the band above it "
                      "reaches the median plus the threshold: a p50 above the band is slower by "
                      "more than the threshold, and regressed if its interval also lies above 0.");
  html += runsTable(trend);
  section.html = html;
  return section;
}

}  // namespace distbench::cli
