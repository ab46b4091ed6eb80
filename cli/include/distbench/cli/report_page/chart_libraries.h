// The chart libraries that `distbench report` bundles into its page: Vega,
// Vega-Lite and vega-embed, minified, each with its licence. They are built
// into the binary (cmake/ChartLibraries.cmake) so that distbench alone writes
// a page that opens offline, with nothing to fetch and nothing to install
// where the page is viewed.
#pragma once

#include <string_view>
#include <vector>

namespace distbench::cli {

struct ChartLibrary {
  std::string_view name;     // the npm package: "vega", "vega-lite", "vega-embed"
  std::string_view script;   // its minified browser build
  std::string_view license;  // its LICENSE file, which the page reproduces
};

// In the order a page must load them: vega-lite needs vega, vega-embed both.
// Empty in a build configured with -DDISTBENCH_REPORT_HTML=OFF.
const std::vector<ChartLibrary>& chartLibraries();

}  // namespace distbench::cli
