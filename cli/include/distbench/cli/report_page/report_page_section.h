// One section of the report page (a kind's charts, the environment, the
// comparison with a baseline): its HTML, already escaped, and the charts the
// page script draws into it. Sections are built from a report alone and
// know nothing of the page around them (report_page.h).
#pragma once

#include <string>
#include <vector>

#include "distbench/cli/report_page/vega_lite.h"

namespace distbench::cli {

struct Chart {
  // The id of the element it is drawn into. Made of fixed words and indexes,
  // never of report text, so it needs no escaping anywhere.
  std::string id;
  vl::Json spec;  // Vega-Lite, data inline
};

struct PageSection {
  std::string id;       // fixed, like Chart::id
  std::string heading;  // plain text
  std::string html;     // escaped; holds a chartFigure() per chart
  std::vector<Chart> charts;
};

// Where `chart` is drawn, with `caption` (plain text) under it.
std::string chartFigure(const Chart& chart, const std::string& caption);

// A paragraph of plain text, for what a chart cannot show ("this report has
// no per-phase timings").
std::string noteParagraph(const std::string& text);

}  // namespace distbench::cli
