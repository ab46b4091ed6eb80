#include "distbench/cli/local_run/sandbox_report.h"

#include <filesystem>
#include <stdexcept>

#include "distbench/report/attribution.h"
#include "distbench/report/report_json.h"

namespace distbench::cli {

std::string addLocalBlock(const std::string& reportPath, const std::string& localJson) {
  report::Report parsed = report::loadReportFile(reportPath);
  parsed.localJson = localJson;
  const report::Attribution attribution = report::attribute(parsed);
  parsed.attributionJson = report::attributionToJson(attribution);
  // Through a temporary file beside it: a failed write keeps the master's report.
  report::writeReportFile(reportPath, parsed);
  return report::formatAttributionFooter(attribution);
}

}  // namespace distbench::cli
