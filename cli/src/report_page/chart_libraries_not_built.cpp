// chartLibraries() of a build configured with -DDISTBENCH_REPORT_HTML=OFF
// (cmake/ChartLibraries.cmake): such a distbench has no charts to bundle, and
// `distbench report` says so instead of writing a page that needs the network.
#include "distbench/cli/report_page/chart_libraries.h"

namespace distbench::cli {

const std::vector<ChartLibrary>& chartLibraries() {
  static const std::vector<ChartLibrary> none;
  return none;
}

}  // namespace distbench::cli
