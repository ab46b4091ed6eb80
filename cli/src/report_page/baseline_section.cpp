// The comparison with a baseline report: the rows, intervals and verdicts of
// compareReports (report_diff.h), the same ones `distbench diff BASELINE RUN`
// prints, as a chart and tables. Nothing is compared here.
#include <cstdio>
#include <string>
#include <vector>

#include "distbench/cli/report_page/html_table.h"
#include "distbench/cli/report_page/html_text.h"
#include "distbench/cli/report_page/page_numbers.h"
#include "distbench/cli/report_page/report_page_sections.h"
#include "distbench/report/diff_table.h"
#include "distbench/report/report_diff.h"

namespace distbench::cli {
namespace {

using report::DiffOptions;
using report::GroupDiff;
using report::ReportDiff;
using report::RowDiff;
using vl::arr;
using vl::field;
using vl::Json;
using vl::num;
using vl::obj;
using vl::str;

std::string printed(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

std::string confidenceText(const DiffOptions& options) {
  return printed("%g%%", options.bootstrap.confidence * 100);
}

// What a row's median change says, in words the table and chart share.
std::string verdictOf(const RowDiff& row) {
  if (row.regressed) return "regression";
  if (!row.median.significant) return "not significant";
  return row.median.pointChange > 0 ? "slower" : "faster";
}

std::string join(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

// Every compared row's median change with its interval, on one axis: a
// forest plot. Rows keep the diff's order, groups first.
Chart changeChart(const ReportDiff& diff, const DiffOptions& options) {
  std::vector<Json> rows;
  std::vector<std::string> order;
  for (const GroupDiff& group : diff.groups) {
    for (const RowDiff& row : group.rows) {
      const std::string label = group.group + " · " + row.base->row;
      order.push_back(label);
      rows.push_back(obj({{"row", str(label)},
                          {"change", num(row.median.pointChange * 100)},
                          {"low", num(row.median.low * 100)},
                          {"high", num(row.median.high * 100)},
                          {"verdict", str(verdictOf(row))}}));
    }
  }
  const Json y = field("row", "nominal", "", {{"sort", vl::strings(order)}});
  const std::string xTitle = "change of the median time, % (positive: this run is slower)";
  const Json x = field("change", "quantitative", xTitle);
  const Json verdictColor =
      field("verdict", "nominal", "verdict",
            {{"scale",
              obj({{"domain", vl::strings({"regression", "slower", "faster", "not significant"})},
                   {"range", vl::strings({"#d62728", "#ff7f0e", "#2ca02c", "#7f7f7f"})}})}});
  std::vector<Json> layers = {
      obj({{"mark", obj({{"type", str("rule")}, {"strokeWidth", Json::number(2)}})},
           {"encoding", obj({{"y", y},
                             {"x", field("low", "quantitative", xTitle)},
                             {"x2", obj({{"field", str("high")}})},
                             {"color", verdictColor}})}}),
      obj({{"mark", obj({{"type", str("point")},
                         {"filled", Json::boolean(true)},
                         {"size", Json::number(60)}})},
           {"encoding", obj({{"y", y},
                             {"x", x},
                             {"color", verdictColor},
                             {"tooltip", arr({vl::tooltip("row", "row"),
                                              vl::tooltip("change", "median change %", "+.1f"),
                                              vl::tooltip("low", "interval low %", "+.1f"),
                                              vl::tooltip("high", "interval high %", "+.1f"),
                                              vl::tooltip("verdict", "verdict")})}})}}),
  };
  // Where the judgement lies: no change, and the --threshold when given.
  std::vector<Json> references = {obj({{"at", num(0)}, {"what", str("no change")}})};
  if (options.thresholdPercent) {
    references.push_back(
        obj({{"at", num(*options.thresholdPercent)},
             {"what", str("--threshold " + formatNumber(*options.thresholdPercent) + "%")}}));
  }
  layers.push_back(obj({{"data", obj({{"values", arr(references)}})},
                        {"mark", obj({{"type", str("rule")},
                                      {"strokeDash", arr({num(4), num(4)})},
                                      {"color", str("#555")}})},
                        {"encoding", obj({{"x", field("at", "quantitative", xTitle)},
                                          {"tooltip", arr({vl::tooltip("what", "line")})}})}}));
  Json spec = obj({
      {"title", str("Change of the median against the baseline, with its " +
                    confidenceText(options) + " bootstrap interval")},
      {"width", Json::number(600)},
      {"height", obj({{"step", Json::number(18)}})},
      {"data", obj({{"values", arr(rows)}})},
      {"layer", arr(layers)},
  });
  return {"baseline-change", std::move(spec)};
}

std::string groupTable(const GroupDiff& group, const DiffOptions& options) {
  std::vector<std::string> headers = {"row"};
  for (int p : options.percentiles) {
    const std::string pName = "p" + std::to_string(p);
    headers.push_back("baseline " + pName);
    headers.push_back("this run " + pName);
    headers.push_back(pName + " change");
  }
  headers.push_back("median change");
  headers.push_back(confidenceText(options) + " interval");
  headers.push_back("verdict");
  HtmlTable table(headers);
  for (const RowDiff& row : group.rows) {
    std::vector<std::string> cells = {row.base->row};
    for (size_t i = 0; i < options.percentiles.size(); ++i) {
      cells.push_back(formatDuration(row.basePercentiles[i]));
      cells.push_back(formatDuration(row.testPercentiles[i]));
      cells.push_back(
          formatChange(report::percentChange(row.basePercentiles[i], row.testPercentiles[i])));
    }
    cells.push_back(formatChange(row.median.pointChange * 100));
    cells.push_back("[" + formatChange(row.median.low * 100) + ", " +
                    formatChange(row.median.high * 100) + "]");
    std::string verdict = verdictOf(row);
    if (row.regressed) verdict += " (over " + formatNumber(*options.thresholdPercent) + "%)";
    cells.push_back(verdict);
    table.addRow(cells, row.regressed ? "regressed" : "");
  }
  std::string html = "<h3>" + htmlEscape(group.group) + "</h3>\n";
  if (!group.rows.empty()) html += table.html();
  if (!group.onlyInBase.empty())
    html += noteParagraph("Only in the baseline: " + join(group.onlyInBase));
  if (!group.onlyInTest.empty())
    html += noteParagraph("Only in this run: " + join(group.onlyInTest));
  if (!group.notCompared.empty()) {
    html +=
        noteParagraph("Not compared (they measured different things): " + join(group.notCompared));
  }
  if (!group.perWork.empty()) {
    html += noteParagraph("Compared per unit of work, this run scaled to the baseline's: " +
                          join(group.perWork));
  }
  return html;
}

}  // namespace

PageSection baselineSection(const report::Report& baseline, const std::string& baselineSource,
                            const report::Report& run, const report::ReportDiff& diff,
                            const report::DiffOptions& options) {
  PageSection section{"baseline", "Compared with the baseline", "", {}};
  std::string html = "<p>Baseline <code>" + htmlEscape(baselineSource) + "</code> (" +
                     htmlEscape(baseline.name) + ", " + htmlEscape(baseline.kind) +
                     "): the rows <code>distbench diff BASELINE RUN</code> compares, with the "
                     "same flags. Every change is of time: positive means this run is slower. "
                     "The median's interval is a percentile bootstrap (" +
                     std::to_string(options.bootstrap.resamples) + " resamples, seed " +
                     std::to_string(options.bootstrap.seed) +
                     "); a change whose interval contains 0 is not significant.</p>\n";

  const std::string verdict = report::formatRegressions(diff, options);
  if (!verdict.empty()) {
    const bool bad = report::anyRegression(diff) || diff.comparedRows() == 0;
    html += "<p class=\"verdict " + std::string(bad ? "bad" : "good") + "\">" +
            htmlEscape(verdict) + "</p>\n";
  }
  if (diff.comparedRows() > 0) {
    section.charts.push_back(changeChart(diff, options));
    html += chartFigure(section.charts.back(),
                        "Each row's change of the median (dot) and its interval (bar). Red rows "
                        "regressed: slower by more than --threshold with the whole interval "
                        "above 0.");
  }
  for (const GroupDiff& group : diff.groups) html += groupTable(group, options);
  html += "<details><summary>As <code>distbench diff</code> prints it</summary>\n<pre>" +
          htmlEscape(report::formatDiff(baseline, run, diff, options)) + "</pre>\n</details>\n";
  section.html = html;
  return section;
}

}  // namespace distbench::cli
