// The page `distbench report` writes: one HTML file holding everything it
// shows (the data as JSON, the chart specs, the chart libraries), so it
// opens offline and fetches nothing. Report text reaches it only escaped
// (html_text.h).
#pragma once

#include <string>
#include <vector>

#include "distbench/cli/report_page/chart_libraries.h"
#include "distbench/report/baseline_trend.h"
#include "distbench/report/report.h"
#include "distbench/report/report_diff.h"

namespace distbench::cli {

struct ReportPageInput {
  const report::Report* run = nullptr;
  std::string runSource;  // the run's report file, as given
  // With --baseline: the baseline, its file, and compareReports(baseline, run).
  const report::Report* baseline = nullptr;
  std::string baselineSource;
  const report::ReportDiff* diff = nullptr;
  report::DiffOptions options;
  // With --trend: the runs replayed against the rolling baseline, oldest
  // first; `run` is the newest.
  const std::vector<report::TrendRun>* trend = nullptr;
  report::TrendOptions trendOptions;
};

// The element ids the page scripts and tests rely on.
inline constexpr const char* kReportDataId = "distbench-report-data";
inline constexpr const char* kRenderStatusId = "distbench-render-status";

// Throws std::invalid_argument when a library's text would end its inline
// <script> early ("</script" or "<!--" in it), which the page cannot escape
// without changing the library.
std::string renderReportPage(const ReportPageInput& input,
                             const std::vector<ChartLibrary>& libraries);

}  // namespace distbench::cli
