// The stacked-phase bar chart of the report page: one bar per row (a DDP
// sweep row, a hybrid trainer), split into the p50 of each phase in the
// order the phases happen. The DDP and the HybridDDPRPC sections both draw
// it; they differ only in the words and in which statistics the tooltip
// adds to the p50.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "distbench/cli/report_page/report_page_section.h"
#include "distbench/cli/report_page/vega_lite.h"

namespace distbench::cli {

struct StackedPhaseChart {
  std::string id;
  std::string title;
  int width = 560;
  std::string barField;             // the bars' field, also its tooltip title: "row", "trainer"
  std::string barAxisTitle;         // the bars' axis title: "row", or "" where the names say it
  std::string secondsTitle;         // the x axis: "seconds per iteration (...)"
  std::vector<std::string> phases;  // in the order they happen: the stack and colour order
  // The statistics, after p50, each bar carries and its tooltip shows
  // ("p95", "mean"), as "<statistic> seconds".
  std::vector<std::string> statistics;
};

// A bar: its label and its phases object ({phase: {p50, p95, mean...}}).
struct PhaseBar {
  std::string label;
  const vl::Json* phases;
};

// Nothing when no phase of any bar has a p50.
std::optional<Chart> stackedPhaseChart(const StackedPhaseChart& chart,
                                       const std::vector<PhaseBar>& bars);

}  // namespace distbench::cli
