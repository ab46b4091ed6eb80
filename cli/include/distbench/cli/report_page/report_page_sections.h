// The sections of the report page, each built from reports alone
// (report_page_section.h). report_page.cpp puts them in order.
#pragma once

#include <string>
#include <vector>

#include "distbench/cli/report_page/report_page_section.h"
#include "distbench/report/baseline_trend.h"
#include "distbench/report/report.h"
#include "distbench/report/report_diff.h"

namespace distbench::cli {

// HybridDDPRPC: each trainer's epoch times (empirical CDF, box plot; p50 and
// p95 marked) and the per-batch phase breakdown, when the report has it.
PageSection hybridSection(const report::Report& report);

// DDP, per model: aggregate examples/s and scaling efficiency against world
// size, and the per-iteration phase split of each row.
PageSection ddpSection(const report::Report& report);

// Collectives: p50 latency and busbw against message size, log-log, per op
// and dtype.
PageSection collectivesSection(const report::Report& report);

// Fabric: the pair matrix as a heat map against the line, the suspects with
// their intervals, and every node's links and compute.
PageSection fabricSection(const report::Report& report);

// Why the run is as fast as it is: the report's attribution per row (bound,
// phase shares, straggler, slow link, what-if).
PageSection whySection(const report::Report& report);

// Every series' summary: the numbers behind the charts.
PageSection measurementsSection(const report::Report& report);

// Versions, backend, device, host, topology, seed, bucket size, and the
// resolved config (collapsed).
PageSection environmentSection(const report::Report& report);

// The rows `distbench diff BASELINE RUN` compares, with their intervals and
// regressions. `baselineSource` names the baseline (its path as given).
PageSection baselineSection(const report::Report& baseline, const std::string& baselineSource,
                            const report::Report& run, const report::ReportDiff& diff,
                            const report::DiffOptions& options);

// A series of runs replayed against the rolling baseline (replayTrend): each
// row's p50 per run with the band of the baseline it was judged by, and a
// table of the runs' verdicts.
PageSection trendSection(const std::vector<report::TrendRun>& trend,
                         const report::TrendOptions& options);

}  // namespace distbench::cli
