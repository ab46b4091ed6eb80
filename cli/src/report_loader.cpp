#include "distbench/cli/report_loader.h"

#include "distbench/report/report_json.h"

namespace distbench::cli {

const ReportLoader& fileReports() {
  static const ReportLoader files = [](const std::string& path) {
    return report::loadReportFile(path);
  };
  return files;
}

}  // namespace distbench::cli
