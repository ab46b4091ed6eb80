// The parts of the report page that are the same for every report: its style
// sheet and its two scripts. Plain text, inlined into the page as they are.
#pragma once

namespace distbench::cli {

extern const char* const kPageStyle;

// Runs first, in <head>, before the chart libraries load: records every
// uncaught error, unhandled rejection, console.error and console.warn into
// the page's status element (#distbench-render-status, JSON), so that a
// failure of the libraries themselves is caught too.
extern const char* const kPageMonitorScript;

// Runs last: draws each chart of the data block (#distbench-report-data)
// with vega-embed, then records into the status element how many marks each
// chart rendered (counted on the Vega view's scenegraph), every resource the
// page fetched (there should be none), the page's height, and done: true.
// scripts/render-report-page.py reads that record back from Chromium.
extern const char* const kPageDrawScript;

}  // namespace distbench::cli
