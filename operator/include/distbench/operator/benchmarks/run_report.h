// The full report of a Succeeded run in the cluster: the master prints it to
// its log as framed lines (distbench/report/report_log.h), the operator reads
// that log through the API server and stores the report in the benchmark's
// <name>-report ConfigMap, then compares it with spec.baseline as `distbench
// diff --threshold` does. Through the API server, so worker pods need no
// credentials and the gang's NetworkPolicy need not admit the operator.
// Pure: the reconciler does the reading and writing.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include <cpprest/json.h>

#include "distbench/api/benchmark_spec.h"
#include "distbench/report/report.h"

namespace distbench::op {

// A ConfigMap holds at most 1 MiB of data (keys and values); this leaves
// room for the baseline's diff table.
inline constexpr std::size_t kMaxStoredReportBytes = 900 * 1024;
// What the <name>-report ConfigMap's data may hold in all, its keys and
// some room to spare included: the diff is cut to what is left after the
// report.
inline constexpr std::size_t kMaxReportConfigMapDataBytes = 1024 * 1024 - 4096;
// Where the diff against spec.baseline goes, beside kReportKey.
inline constexpr const char* kBaselineDiffKey = "baseline-diff.txt";

// How much of the master's log the operator reads: the image is the user's,
// and its log may hold gigabytes. The last kMasterLogTailLines lines (a
// frame of the largest report, and lines printed around it), of which at
// most kMasterLogLimitBytes (that frame, and 512 KiB of those lines). The
// kubelet cuts the log so (tailLines, limitBytes); the operator reads no
// more than that whatever answers.
inline constexpr std::size_t kMasterLogSlackLines = 1000;
inline constexpr std::size_t kMasterLogSlackBytes = 512 * 1024;
std::size_t masterLogTailLines();
std::size_t masterLogLimitBytes();
// The pods/log query reading that much of the master's container.
std::string masterLogQuery();

// Only ConfigMaps that opt in serve as spec.baseline.configMap: this label
// set to "true", or a DistBenchmark's own <name>-report. A benchmark cannot
// read, nor learn of, any other ConfigMap of its namespace.
inline constexpr const char* kBaselineLabel = "distbench.io/baseline";

struct ExtractedReport {
  bool found = false;
  std::string json;     // when found: as the master wrote it, stored as is
  report::Report parsed;  // when found: `json` read, for the comparison
  std::string reason;   // else: ReportMissing | ReportDamaged | ReportTooLarge
  std::string message;  // for people: what is wrong, naming the pod
};

// The report carried by the master's log `log` (of pod `pod`, as read with
// masterLogQuery), checked to be a report this operator can read.
ExtractedReport reportFromMasterLog(const std::string& log, const std::string& pod);
// Why nothing was: the log's answer ran past masterLogLimitBytes.
ExtractedReport masterLogTooLarge(const std::string& pod);

// The diff table stored beside a report of `reportBytes`: whole when it
// fits kMaxReportConfigMapDataBytes, else cut at a line and ending in a line
// that says so. `cut` says whether it was.
std::string boundedDiff(const std::string& diffText, std::size_t reportBytes, bool* cut);

// Whether ConfigMap `configMap` (as the API returns it) may serve as
// spec.baseline: for `benchmark`, it is that DistBenchmark's own report
// (its controller, or its benchmark label); for `configMap`, it is labelled
// kBaselineLabel=true or is some DistBenchmark's report.
bool servesAsBaseline(const web::json::value& configMap, const api::Baseline& baseline);

// The comparison with spec.baseline, as the RegressionDetected condition
// says it.
struct BaselineOutcome {
  std::string conditionStatus;  // True | False | Unknown
  // RegressionDetected | NoRegression (compared), or why nothing was:
  // BaselineInvalid | BaselineIncomparable | NothingCompared
  std::string reason;
  std::string message;
  int comparedRows = 0;
  int regressedRows = 0;
  std::string worstRow;  // "<group> / <row>: median +3.1% (95% CI ...)"
  std::string diffText;  // distbench diff's output, when rows were compared
  // The baseline's report, where it could be read (a Fabric run's verdict
  // takes its line from it).
  std::optional<report::Report> baseline;
  bool compared() const { return reason == "RegressionDetected" || reason == "NoRegression"; }
};

// `run` this run's report; `baselineJson` the baseline's, named `source` in
// messages.
BaselineOutcome compareWithBaseline(const report::Report& run, const std::string& baselineJson,
                                    const std::string& source, double thresholdPercent);

// The ConfigMap key that holds spec.baseline's report: another benchmark's
// stored report, or the key named.
api::ConfigMapKeyRef baselineLocation(const api::Baseline& baseline);
// For messages and status.baseline.source: "benchmark nightly",
// "configMap baselines/hybrid.json".
std::string baselineSource(const api::Baseline& baseline);

}  // namespace distbench::op
