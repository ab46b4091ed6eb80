#include "distbench/worker/common/result_summary.h"

#include <cpprest/json.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "distbench/api/worker_env.h"
#include "distbench/report/attribution.h"
#include "distbench/report/percentiles.h"

namespace distbench::worker {
namespace {

using web::json::value;

std::string seconds(double s) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, s < 0.01 ? "%.6fs" : "%.3fs", s);
  return buffer;
}

// The attribution's one line, as the master wrote it into the report; ""
// where it has none.
std::string bottleneckOf(const report::Report& r) {
  if (r.attributionJson.empty()) return "";
  try {
    const value a = value::parse(r.attributionJson);
    if (a.has_field("summary") && a.at("summary").is_string()) {
      const std::string line = a.at("summary").as_string();
      // Bounded as attribute() bounds it, whoever wrote the report.
      return line.size() <= report::kSummaryLimit ? line : line.substr(0, report::kSummaryLimit);
    }
  } catch (const web::json::json_exception&) {
  }
  return "";
}

value row(const report::Series& s) {
  std::vector<double> sorted = s.samples;
  std::sort(sorted.begin(), sorted.end());
  value v = value::object(true);
  v["group"] = value::string(s.group);
  v["row"] = value::string(s.row);
  for (int p : {50, 75, 90, 95}) {
    v["p" + std::to_string(p)] = value::number(report::percentileLinear(sorted, p));
  }
  // As the tables' rate columns: what one sample's work is, per second.
  // None for a median of 0 s: JSON has no infinity, and the operator
  // refuses a summary it cannot copy into status.
  const double p50 = report::percentileLinear(sorted, 50);
  const double perSecond = s.workPerSample / p50;
  v["perSecond"] = p50 > 0 && std::isfinite(perSecond) ? value::number(perSecond) : value::null();
  v["unit"] = value::string(s.workUnit);
  return v;
}

}  // namespace

std::string resultSummaryJson(const report::Report& r, HeadlineRule headline, size_t limit) {
  value out = value::object(true);
  out["kind"] = value::string(r.kind);
  if (r.series.empty()) {
    out["rows"] = value::array();
    out["truncated"] = value::boolean(false);
    return out.serialize();
  }
  const size_t head = headline(r);
  std::vector<double> headSamples = r.series.at(head).samples;
  std::sort(headSamples.begin(), headSamples.end());
  out["p50"] = value::string(seconds(report::percentileLinear(headSamples, 50)));
  out["headline"] = value::string(r.series[head].group + " " + r.series[head].row);
  // Before the rows: it is never dropped to fit, the rows are.
  const std::string bottleneck = bottleneckOf(r);
  if (!bottleneck.empty()) out["bottleneck"] = value::string(bottleneck);
  // Most informative first: the headline, then the rest in report order.
  std::vector<size_t> order{head};
  for (size_t i = 0; i < r.series.size(); ++i)
    if (i != head) order.push_back(i);
  value rows = value::array();
  out["truncated"] = value::boolean(false);
  for (size_t i : order) {
    rows[rows.size()] = row(r.series[i]);
    out["rows"] = rows;
    if (out.serialize().size() > limit) {
      rows.as_array().erase(rows.as_array().end() - 1);
      out["rows"] = rows;
      out["truncated"] = value::boolean(true);
      break;
    }
  }
  return out.serialize();
}

std::string writeTerminationMessage(const report::Report& r, HeadlineRule headline) {
  const char* env = std::getenv(api::kEnvTerminationLog);
  std::string path = env != nullptr && *env != 0 ? env : "/dev/termination-log";
  if (env == nullptr && ::access(path.c_str(), W_OK) != 0) return "";
  std::ofstream out(path, std::ios::trunc);
  out << resultSummaryJson(r, headline);
  return out ? path : "";
}

}  // namespace distbench::worker
