#include "distbench/plugin/run_view.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "distbench/plugin/object_fields.h"

namespace distbench::plugin {
namespace {

using web::json::value;

std::string pad(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s + " ";
}

bool conditionTrue(const value& b, const char* type) {
  const value* c = conditionOf(b, type);
  return c != nullptr && textAt(*c, "status") == "True";
}

// Ready ranks of the current gang over the gang's size.
std::string readyRanks(const value& status) {
  int64_t ready = 0, total = 0;
  for (const char* role : {"master", "parameterServers", "trainers"}) {
    const value& r = fieldAt(status, role);
    ready += integerAt(r, "ready");
    total += integerAt(r, "active") + integerAt(r, "succeeded") + integerAt(r, "failed");
  }
  return std::to_string(ready) + "/" + std::to_string(total);
}

std::string seconds(double s) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4f", s);
  return buffer;
}

std::string percent(const value& v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", v.is_number() ? v.as_double() : 0.0);
  return buffer;
}

std::string rate(const value& row) {
  const value& r = fieldAt(row, "perSecond");
  if (!r.is_number()) return "-";
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.1f %s/s", r.as_double(), textAt(row, "unit").c_str());
  return buffer;
}

// status.results' rows as a table, for a report without the master's own
// output; "" without rows.
std::string resultRows(const value& results) {
  const value& rows = fieldAt(results, "rows");
  std::string out;
  if (rows.is_array() && rows.size() > 0) {
    out += "\n" + pad("group", 36) + pad("row", 14) + pad("p50 (s)", 9) + pad("p75 (s)", 9) +
           pad("p90 (s)", 9) + pad("p95 (s)", 9) + "rate\n";
    for (const value& row : rows.as_array()) {
      out += pad(textAt(row, "group"), 36) + pad(textAt(row, "row"), 14);
      for (const char* p : {"p50", "p75", "p90", "p95"}) {
        const value& v = fieldAt(row, p);
        out += pad(v.is_number() ? seconds(v.as_double()) : "-", 9);
      }
      out += rate(row) + "\n";
    }
    if (fieldAt(results, "truncated").is_boolean() && fieldAt(results, "truncated").as_bool()) {
      out += "(rows left out of the status; the report has them all)\n";
    }
    out += "\n";
  }
  return out;
}

}  // namespace

std::string runVerdict(const value& b) {
  if (conditionTrue(b, "RegressionDetected")) return "Regression";
  const value& baseline = fieldAt(fieldAt(b, "status"), "baseline");
  return baseline.is_object() ? "NoRegression" : "";
}

std::string runStateLine(const value& b) {
  const value& status = fieldAt(b, "status");
  const std::string phase = textAt(status, "phase");
  std::string line = phase.empty() ? "Pending (no status yet: is the operator running?)" : phase;
  line += ", gang " + std::to_string(integerAt(status, "restartCount"));
  // Ranks ready only while it runs: a finished gang's pods have exited (and
  // the parameter servers are stopped rather than succeed).
  if (phase != "Succeeded" && phase != "Failed") line += ", ranks " + readyRanks(status) + " ready";
  if (!textAt(status, "message").empty() && (phase == "Failed" || phase == "Pending")) {
    line += ": " + textAt(status, "message");
  }
  return line;
}

std::string progressBar(const value& b, std::size_t width) {
  const value& p = fieldAt(fieldAt(b, "status"), "progress");
  if (!p.is_object()) return "";
  const int64_t done = integerAt(p, "done");
  const int64_t total = integerAt(p, "total");
  // done * n / total, exact (29/100 is 29 %, not 28), and without
  // overflow for counts near 2^63.
  const int64_t d = std::max<int64_t>(0, std::min(done, total));
  auto share = [&](int64_t n) -> int64_t {
    if (total <= 0) return 0;
    if (d <= INT64_MAX / n) return d * n / total;
    return static_cast<int64_t>(static_cast<long double>(d) * n / total);
  };
  const std::size_t filled = static_cast<std::size_t>(share(static_cast<int64_t>(width)));
  return "[" + std::string(filled, '#') + std::string(width - filled, '.') + "]  " +
         std::to_string(done) + "/" + std::to_string(total) + " " + textAt(p, "unit") +
         (total > 0 ? "  " + std::to_string(share(100)) + "%" : "");
}

std::string runSummary(const value& b, const StoredOutput& stored) {
  const value& status = fieldAt(b, "status");
  std::string out = textAt(fieldAt(b, "metadata"), "name") + ": " + runStateLine(b) + "\n";
  if (!stored.masterOutput.empty()) {
    // Its attribution footer is in it.
    out += "\n" + stored.masterOutput;
    if (stored.masterOutput.back() != '\n') out += "\n";
    out += "\n";
  } else {
    out += resultRows(fieldAt(status, "results"));
    if (!stored.attribution.empty()) {
      out += stored.attribution;
    } else if (!textAt(status, "bottleneck").empty()) {
      out += "bottleneck: " + textAt(status, "bottleneck") + "\n";
    }
  }
  const value& baseline = fieldAt(status, "baseline");
  if (baseline.is_object()) {
    out += "baseline " + textAt(baseline, "source") + ": " + runVerdict(b) + ", " +
           std::to_string(integerAt(baseline, "regressedRows")) + " of " +
           std::to_string(integerAt(baseline, "comparedRows")) + " rows regressed over " +
           percent(fieldAt(baseline, "thresholdPercent")) + " %" +
           (textAt(baseline, "worstRow").empty() ? "" : "; worst " + textAt(baseline, "worstRow")) +
           "\n";
  }
  const value& fabric = fieldAt(status, "fabric");
  if (fabric.is_object()) {
    const value& suspects = fieldAt(fabric, "suspects");
    out += "fabric: " + std::to_string(integerAt(fabric, "pairsMeasured")) + " of " +
           std::to_string(integerAt(fabric, "pairsTotal")) + " pairs measured, " +
           (suspects.is_array() && suspects.size() > 0
                ? std::to_string(suspects.size()) + " suspect(s)"
                : std::string("nothing slow")) +
           "\n";
    if (suspects.is_array()) {
      for (const value& s : suspects.as_array()) {
        out += "  " + textAt(s, "status") + " " + textAt(s, "what") + " " + textAt(s, "where") +
               ": " + textAt(s, "evidence") + "\n";
      }
    }
  }
  if (conditionTrue(b, "ReportStored")) {
    out += "report: kubectl distbench report " + textAt(fieldAt(b, "metadata"), "name") + "\n";
  }
  return out;
}

std::string runListHeader() {
  return pad("NAME", 28) + pad("PHASE", 10) + pad("GANG", 5) + pad("READY", 6) + pad("P50", 10) +
         "VERDICT\n";
}

std::string runListLine(const value& b) {
  const value& status = fieldAt(b, "status");
  const std::string p50 = textAt(fieldAt(status, "results"), "p50");
  const std::string verdict = runVerdict(b);
  const std::string phase = textAt(status, "phase");
  const bool finished = phase == "Succeeded" || phase == "Failed";
  return pad(textAt(fieldAt(b, "metadata"), "name"), 28) + pad(phase.empty() ? "-" : phase, 10) +
         pad(std::to_string(integerAt(status, "restartCount")), 5) +
         pad(finished ? "-" : readyRanks(status), 6) + pad(p50.empty() ? "-" : p50, 10) +
         (verdict.empty() ? "-" : verdict) + "\n";
}

std::string scheduleSummary(const value& s) {
  const value& spec = fieldAt(s, "spec");
  const value& status = fieldAt(s, "status");
  const value& last = fieldAt(status, "lastRun");
  std::string out =
      textAt(fieldAt(s, "metadata"), "name") + ": \"" + textAt(spec, "schedule") + "\" (" +
      (textAt(spec, "timeZone").empty() ? "UTC" : textAt(spec, "timeZone")) + ")" +
      (fieldAt(spec, "suspend").is_boolean() && fieldAt(spec, "suspend").as_bool() ? ", suspended"
                                                                                   : "") +
      "; next " +
      (textAt(status, "nextScheduleTime").empty() ? "-" : textAt(status, "nextScheduleTime")) +
      "\n";
  if (last.is_object()) {
    out += "last run " + textAt(last, "name") + ": " + textAt(last, "phase") + ", p50 " +
           (textAt(last, "p50").empty() ? "-" : textAt(last, "p50")) + ", verdict " +
           textAt(last, "verdict") +
           (textAt(last, "worstRow").empty() ? "" : "; worst " + textAt(last, "worstRow")) + "\n";
  }
  const value& runs = fieldAt(status, "runs");
  if (runs.is_array() && runs.size() > 0) {
    out += "kept runs:\n";
    for (const value& r : runs.as_array()) {
      out += "  " + pad(textAt(r, "name"), 32) + textAt(r, "scheduledTime") + "\n";
    }
  }
  const value& pooled = fieldAt(fieldAt(status, "baseline"), "runs");
  if (pooled.is_array()) {
    out += "baseline: " + std::to_string(pooled.size()) + " run(s) pooled in ConfigMap " +
           textAt(fieldAt(status, "baseline"), "configMap") + "\n";
  }
  if (runs.is_array() && runs.size() >= 2) {
    out += "trend: kubectl distbench report " + textAt(fieldAt(s, "metadata"), "name") + "\n";
  }
  return out;
}

std::string scheduleListHeader() {
  return pad("SCHEDULE", 28) + pad("CRON", 16) + pad("LAST RUN", 32) + pad("P50", 10) + "VERDICT\n";
}

std::string scheduleListLine(const value& s) {
  const value& last = fieldAt(fieldAt(s, "status"), "lastRun");
  return pad(textAt(fieldAt(s, "metadata"), "name"), 28) +
         pad(textAt(fieldAt(s, "spec"), "schedule"), 16) +
         pad(last.is_object() ? textAt(last, "name") : "-", 32) +
         pad(textAt(last, "p50").empty() ? "-" : textAt(last, "p50"), 10) +
         (textAt(last, "verdict").empty() ? "-" : textAt(last, "verdict")) + "\n";
}

}  // namespace distbench::plugin
