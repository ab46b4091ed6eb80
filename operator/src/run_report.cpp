#include "run_report.h"

#include <exception>
#include <optional>
#include <sstream>

#include "distbench/api/object_names.h"
#include "distbench/report/diff_table.h"
#include "distbench/report/report_diff.h"
#include "distbench/report/report_json.h"
#include "distbench/report/report_log.h"

namespace distbench::op {
namespace {

// 5 -> "5%", 2.5 -> "2.5%".
std::string percentText(double percent) {
  std::ostringstream out;
  out << percent << "%";
  return out.str();
}

}  // namespace

ExtractedReport reportFromMasterLog(const std::string& log, const std::string& pod) {
  ExtractedReport out;
  std::optional<std::string> json;
  try {
    json = report::reportFromLog(log);
  } catch (const report::ReportLogError& e) {
    out.reason = "ReportDamaged";
    out.message = "the report in pod " + pod + "'s log is damaged: " + e.what();
    return out;
  }
  if (!json) {
    out.reason = "ReportMissing";
    out.message = "pod " + pod +
                  "'s log carries no report (an image older than this operator prints none)";
    return out;
  }
  if (json->size() > kMaxStoredReportBytes) {
    out.reason = "ReportTooLarge";
    out.message = "the report is " + std::to_string(json->size()) +
                  " bytes, more than a ConfigMap holds (" +
                  std::to_string(kMaxStoredReportBytes) + "); it stays in pod " + pod + "'s log";
    return out;
  }
  try {
    out.parsed = report::parseReport(*json, "the report in pod " + pod + "'s log");
  } catch (const std::exception& e) {
    out.reason = "ReportDamaged";
    out.message = e.what();
    return out;
  }
  out.found = true;
  out.json = std::move(*json);
  return out;
}

BaselineOutcome compareWithBaseline(const report::Report& run, const std::string& baselineJson,
                                    const std::string& source, double thresholdPercent) {
  BaselineOutcome out;
  out.conditionStatus = "Unknown";
  report::Report base;
  try {
    base = report::parseReport(baselineJson, "the baseline (" + source + ")");
  } catch (const std::exception& e) {
    out.reason = "BaselineInvalid";
    out.message = e.what();
    return out;
  }
  report::DiffOptions options;
  options.thresholdPercent = thresholdPercent;
  report::ReportDiff diff;
  try {
    diff = report::compareReports(base, run, options);
  } catch (const report::IncomparableReports& e) {
    out.reason = "BaselineIncomparable";
    out.message = "not compared with " + source + ": " + e.what();
    return out;
  }
  out.comparedRows = static_cast<int>(diff.comparedRows());
  if (out.comparedRows == 0) {
    // As `distbench diff` exits 2: a gate that compared nothing must not
    // read as "no regression".
    out.reason = "NothingCompared";
    out.message = "no row of " + source + " could be compared with this run's";
    return out;
  }
  for (const report::GroupDiff& g : diff.groups)
    for (const report::RowDiff& r : g.rows)
      if (r.regressed) ++out.regressedRows;
  const report::GroupDiff* group = nullptr;
  if (const report::RowDiff* worst = report::worstRow(diff, &group); worst && group)
    out.worstRow = report::describeRow(*group, *worst, options);
  out.diffText = report::formatDiff(base, run, diff, options);
  const std::string counts = std::to_string(out.regressedRows) + " of " +
                             std::to_string(out.comparedRows) + " rows regressed over " +
                             percentText(thresholdPercent) + " against " + source;
  if (out.regressedRows > 0) {
    out.conditionStatus = "True";
    out.reason = "RegressionDetected";
  } else {
    out.conditionStatus = "False";
    out.reason = "NoRegression";
  }
  out.message = counts + (out.worstRow.empty() ? "" : "; worst " + out.worstRow);
  return out;
}

api::ConfigMapKeyRef baselineLocation(const api::Baseline& baseline) {
  if (baseline.configMap) return *baseline.configMap;
  return {api::reportConfigMapName(baseline.benchmark.value_or("")), api::kReportKey};
}

std::string baselineSource(const api::Baseline& baseline) {
  if (baseline.configMap) return "configMap " + baseline.configMap->name + "/" + baseline.configMap->key;
  return "benchmark " + baseline.benchmark.value_or("");
}

}  // namespace distbench::op
