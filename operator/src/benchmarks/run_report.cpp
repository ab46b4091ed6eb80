#include "distbench/operator/benchmarks/run_report.h"

#include <exception>
#include <optional>
#include <sstream>

#include "distbench/api/object_names.h"
#include "distbench/operator/benchmarks/desired_objects.h"
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

// "1.7 MiB", "900 KiB", "512 bytes": sizes in messages.
std::string sizeText(std::size_t bytes) {
  std::ostringstream out;
  if (bytes >= 1024 * 1024) {
    out.precision(2);
    out << static_cast<double>(bytes) / (1024.0 * 1024.0) << " MiB";
  } else if (bytes >= 1024) {
    out << bytes / 1024 << " KiB";
  } else {
    out << bytes << " bytes";
  }
  return out.str();
}

}  // namespace

std::size_t masterLogTailLines() {
  return report::reportLogFrameLines(kMaxStoredReportBytes) + kMasterLogSlackLines;
}

std::size_t masterLogLimitBytes() {
  return report::reportLogFrameBytes(kMaxStoredReportBytes) + kMasterLogSlackBytes;
}

std::string masterLogQuery() {
  return "container=worker&tailLines=" + std::to_string(masterLogTailLines()) +
         "&limitBytes=" + std::to_string(masterLogLimitBytes());
}

ExtractedReport masterLogTooLarge(const std::string& pod) {
  ExtractedReport out;
  out.reason = "ReportTooLarge";
  out.message = "the last " + std::to_string(masterLogTailLines()) + " lines of pod " + pod +
                "'s log hold more than " + std::to_string(masterLogLimitBytes()) +
                " bytes, the most the operator reads, and no whole report frame is within them "
                "(a report is at most " + sizeText(kMaxStoredReportBytes) +
                "; print less around it)";
  return out;
}

ExtractedReport reportFromMasterLog(const std::string& log, const std::string& pod) {
  ExtractedReport out;
  std::optional<std::string> json;
  try {
    json = report::reportFromLog(log, kMaxStoredReportBytes);
  } catch (const report::ReportLogTooLarge& e) {
    out.reason = "ReportTooLarge";
    out.message = "the report in pod " + pod + "'s log announces " +
                  std::to_string(e.announced()) + " bytes, more than a ConfigMap holds (" +
                  std::to_string(kMaxStoredReportBytes) + "); it stays in the log";
    return out;
  } catch (const report::ReportLogError& e) {
    // Cut by the bound on what is read: too much around the frame.
    if (log.size() >= masterLogLimitBytes()) return masterLogTooLarge(pod);
    out.reason = "ReportDamaged";
    out.message = "the report in pod " + pod + "'s log is damaged: " + e.what();
    return out;
  }
  if (!json) {
    if (log.size() >= masterLogLimitBytes()) return masterLogTooLarge(pod);
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
  out.baseline = base;
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

std::string boundedDiff(const std::string& diffText, std::size_t reportBytes, bool* cut) {
  const std::size_t keys = std::string(api::kReportKey).size() + std::string(kBaselineDiffKey).size();
  const std::size_t room =
      kMaxReportConfigMapDataBytes > reportBytes + keys ? kMaxReportConfigMapDataBytes - reportBytes - keys : 0;
  *cut = diffText.size() > room;
  if (!*cut) return diffText;
  const std::string note = "... cut: the whole table is " + std::to_string(diffText.size()) +
                           " bytes; a ConfigMap holds 1 MiB and " + api::kReportKey + " takes " +
                           std::to_string(reportBytes) + " (`distbench diff` prints it all)\n";
  if (note.size() >= room) return "";
  // Whole lines only: the table stays readable to where it stops.
  const std::size_t keep = diffText.rfind('\n', room - note.size() - 1);
  return (keep == std::string::npos ? std::string() : diffText.substr(0, keep + 1)) + note;
}

namespace {

bool hasLabel(const web::json::value& meta, const std::string& key, const std::string& value) {
  return meta.has_field("labels") && meta.at("labels").is_object() &&
         meta.at("labels").has_field(key) && meta.at("labels").at(key).is_string() &&
         meta.at("labels").at(key).as_string() == value;
}

// The name of the DistBenchmark that controls `meta`'s object, "" if none.
std::string controllingBenchmark(const web::json::value& meta) {
  if (!meta.has_field("ownerReferences") || !meta.at("ownerReferences").is_array()) return "";
  for (const web::json::value& ref : meta.at("ownerReferences").as_array()) {
    auto text = [&ref](const char* key) {
      return ref.has_field(key) && ref.at(key).is_string() ? ref.at(key).as_string() : std::string();
    };
    const bool controller =
        ref.has_field("controller") && ref.at("controller").is_boolean() && ref.at("controller").as_bool();
    if (controller && text("kind") == "DistBenchmark" &&
        text("apiVersion") == api::kApiVersion)
      return text("name");
  }
  return "";
}

}  // namespace

bool servesAsBaseline(const web::json::value& configMap, const api::Baseline& baseline) {
  if (!configMap.is_object() || !configMap.has_field("metadata")) return false;
  const web::json::value& meta = configMap.at("metadata");
  const std::string owner = controllingBenchmark(meta);
  if (baseline.benchmark) {
    const std::string& name = *baseline.benchmark;
    return owner == name || (owner.empty() && hasLabel(meta, kLabelBenchmark, name));
  }
  return hasLabel(meta, kBaselineLabel, "true") || !owner.empty();
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
