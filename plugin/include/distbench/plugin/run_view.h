// What kubectl distbench prints of a DistBenchmark and a
// DistBenchmarkSchedule, from the objects as the operator writes them
// (docs/crd-reference.md): pure, so its tests need no cluster.
#pragma once

#include <cpprest/json.h>

#include <string>

namespace distbench::plugin {

// "Running, gang 1, ranks 5/6 ready", "Succeeded, gang 1", "Failed, gang 3: <message>".
std::string runStateLine(const web::json::value& benchmark);

// status.progress as a bar: "[########............]  40/100 iterations  40%";
// "" when the status has none.
std::string progressBar(const web::json::value& benchmark, std::size_t width = 30);

// What the run's stored report adds to its status.
struct StoredOutput {
  // What the master printed, as it printed it: banner, table, attribution
  // (report::Report::masterOutput). Empty in reports from before it.
  std::string masterOutput;
  // The lines under the master's table (report::formatAttributionFooter),
  // for reports without masterOutput.
  std::string attribution;
};

// A finished run: its state line; the master's output where the report
// carries it, else the rows of status.results (group, row, p50 .. p95,
// rate) and the attribution (from the report, else status.bottleneck); the
// baseline verdict and the fabric suspects.
std::string runSummary(const web::json::value& benchmark, const StoredOutput& stored = {});
// One line of `list`: NAME PHASE GANG READY P50 VERDICT.
std::string runListHeader();
std::string runListLine(const web::json::value& benchmark);
// A schedule: its cron, next run, last run and its verdict, its kept runs.
std::string scheduleSummary(const web::json::value& schedule);
std::string scheduleListHeader();
std::string scheduleListLine(const web::json::value& schedule);

// "Regression", "NoRegression", or "" (no baseline, not finished).
std::string runVerdict(const web::json::value& benchmark);

}  // namespace distbench::plugin
