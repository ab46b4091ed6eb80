// Where and how the run was made: what two reports must share for their
// numbers to be compared, and the config that produced them.
#include <string>

#include "distbench/cli/report_page/html_table.h"
#include "distbench/cli/report_page/html_text.h"
#include "distbench/cli/report_page/page_numbers.h"
#include "distbench/cli/report_page/pretty_json.h"
#include "distbench/cli/report_page/report_page_sections.h"

namespace distbench::cli {
namespace {

std::string joined(const std::vector<std::string>& items, const std::string& none) {
  if (items.empty()) return none;
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

}  // namespace

PageSection environmentSection(const report::Report& report) {
  PageSection section{"environment", "Environment", "", {}};
  HtmlTable table({}, "fields");
  table.addRow({"benchmark", report.name + " (" + report.kind + ")"});
  for (const auto& [name, version] : report.versions) table.addRow({name + " version", version});
  table.addRow({"backend", report.backend});
  table.addRow({"device", report.device});
  table.addRow({"host", report.host.hostname});
  table.addRow({"CPU", report.host.cpuModel + ", " + std::to_string(report.host.logicalCpus) +
                           " logical CPUs"});
  table.addRow({"GPUs", joined(report.host.gpus, "none")});
  table.addRow({"topology", std::to_string(report.trainers) + " trainers, " +
                                std::to_string(report.parameterServers) +
                                " parameter servers, world size " +
                                std::to_string(report.worldSize)});
  table.addRow({"seed", std::to_string(report.seed)});
  table.addRow({"bucketCapMB", formatNumber(report.bucketCapMB)});
  table.addRow({"report schema", std::to_string(report.schemaVersion)});

  std::string config;
  try {
    config = prettyJson(vl::Json::parse(report.configJson));
  } catch (const web::json::json_exception&) {
    config = report.configJson;
  }
  section.html = table.html() +
                 "<details class=\"config\"><summary>Resolved config: the DistBenchmark with "
                 "every default filled in, as the ranks read it</summary>\n<pre>" +
                 htmlEscape(config) + "</pre>\n</details>\n";
  return section;
}

}  // namespace distbench::cli
