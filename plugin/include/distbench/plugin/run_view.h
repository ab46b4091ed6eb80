// What kubectl distbench prints of a DistBenchmark and a
// DistBenchmarkSchedule, from the objects as the operator writes them
// (docs/crd-reference.md): pure, so its tests need no cluster.
#pragma once

#include <cpprest/json.h>

#include <string>

namespace distbench::plugin {

// "Running, gang 1, ranks 5/6 ready", "Succeeded, gang 1", "Failed, gang 3: <message>".
std::string runStateLine(const web::json::value& benchmark);
// A finished run: its state line, the rows of status.results as the master
// prints them (group, row, p50 .. p95, rate), the attribution (the lines
// under the master's table, from the stored report, where given; else
// status.bottleneck, its last line), the baseline verdict and the fabric
// suspects.
std::string runSummary(const web::json::value& benchmark, const std::string& attribution = "");
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
