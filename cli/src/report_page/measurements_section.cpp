// Every series of the report as a table: the numbers the charts are drawn
// from, as the master's table prints them.
#include <string>

#include "distbench/cli/report_page/html_table.h"
#include "distbench/cli/report_page/html_text.h"
#include "distbench/cli/report_page/page_numbers.h"
#include "distbench/cli/report_page/report_page_sections.h"
#include "distbench/report/percentiles.h"

namespace distbench::cli {

PageSection measurementsSection(const report::Report& report) {
  PageSection section{"measurements", "Measurements", "", {}};
  HtmlTable table({"group", "row", "ranks", "samples", "p50", "p75", "p90", "p95",
                   "rate at p50 (per replica)"});
  for (const report::Series& s : report.series) {
    if (s.samples.empty()) {
      table.addRow({s.group, s.row, std::to_string(s.ranks), "0", "", "", "", "", ""});
      continue;
    }
    const report::Summary summary = report::summarize(s.samples);
    table.addRow({s.group, s.row, std::to_string(s.ranks), std::to_string(summary.count),
                  formatDuration(summary.p50), formatDuration(summary.p75),
                  formatDuration(summary.p90), formatDuration(summary.p95),
                  summary.p50 > 0 ? formatRate(s.workPerSample / summary.p50, s.workUnit) : ""});
  }
  const std::string unit = report.series.empty() ? "sample" : report.series.front().sampleOf;
  section.html = "<details" + std::string(report.series.size() <= 24 ? " open" : "") +
                 "><summary>" + std::to_string(report.series.size()) + " series: seconds per " +
                 htmlEscape(unit) +
                 ", warm-up excluded (linear-interpolation percentiles)</summary>\n" +
                 table.html() + "</details>\n";
  return section;
}

}  // namespace distbench::cli
