// The full report of a Succeeded run in the cluster: the master prints it to
// its log as framed lines (distbench/report/report_log.h), the operator reads
// that log through the API server and stores the report in the benchmark's
// <name>-report ConfigMap, then compares it with spec.baseline as `distbench
// diff --threshold` does. Through the API server, so worker pods need no
// credentials and the gang's NetworkPolicy need not admit the operator.
// Pure: the reconciler does the reading and writing.
#pragma once

#include <cstddef>
#include <string>

#include "distbench/api/benchmark_spec.h"
#include "distbench/report/report.h"

namespace distbench::op {

// A ConfigMap holds at most 1 MiB in all (data, keys and metadata); this
// leaves room for the baseline's diff table and the metadata.
inline constexpr std::size_t kMaxStoredReportBytes = 900 * 1024;
// Where the diff against spec.baseline goes, beside kReportKey.
inline constexpr const char* kBaselineDiffKey = "baseline-diff.txt";

struct ExtractedReport {
  bool found = false;
  std::string json;     // when found: as the master wrote it, stored as is
  report::Report parsed;  // when found: `json` read, for the comparison
  std::string reason;   // else: ReportMissing | ReportDamaged | ReportTooLarge
  std::string message;  // for people: what is wrong, naming the pod
};

// The report carried by the master's log `log` (of pod `pod`), checked to be
// a report this operator can read.
ExtractedReport reportFromMasterLog(const std::string& log, const std::string& pod);

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
