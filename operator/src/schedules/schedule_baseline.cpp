#include "distbench/operator/schedules/schedule_baseline.h"

#include "distbench/api/benchmark_spec.h"
#include "distbench/api/schedule_spec.h"
#include "distbench/kube/json_fields.h"
#include "distbench/operator/benchmarks/run_report.h"
#include "distbench/operator/schedules/schedule_row_name.h"
#include "distbench/report/percentiles.h"
#include "distbench/report/report_json.h"

namespace distbench::op {
namespace {

using web::json::value;

const report::Series* findRow(const report::Report& r, const report::Series& like) {
  for (const report::Series& s : r.series)
    if (s.group == like.group && s.row == like.row) return &s;
  return nullptr;
}

}  // namespace

std::vector<report::PooledRun> poolFromConfigMap(const value& configMap, std::string* problem) {
  const std::string text = kube::stringField(configMap, "data", kPoolRunsKey);
  if (text.empty()) return {};
  try {
    return report::parseRunsJson(text, kPoolRunsKey);
  } catch (const std::exception& e) {
    if (problem) *problem = e.what();
    return {};
  }
}

PoolData poolData(std::vector<report::PooledRun>& pool) {
  const std::size_t keys = std::string(kPoolRunsKey).size() + std::string(kPoolBaselineKey).size();
  while (true) {
    const std::string runs = report::runsJson(pool);
    const std::string pooled =
        pool.empty() ? std::string() : report::toJson(report::poolReports(report::reportsOf(pool)));
    const std::size_t bytes = runs.size() + pooled.size() + keys;
    if (bytes <= kMaxPoolDataBytes) {
      value data = value::object();
      data[kPoolRunsKey] = value::string(runs);
      if (!pool.empty()) data[kPoolBaselineKey] = value::string(pooled);
      return {data, bytes};
    }
    // The newest run alone is too large: no pool holds it.
    if (pool.size() <= 1) return {std::nullopt, bytes};
    pool.erase(pool.begin());
  }
}

value scheduleOwnerReference(const std::string& schedule, const std::string& uid) {
  value ref = value::object();
  ref["apiVersion"] = value::string(api::kApiVersion);
  ref["kind"] = value::string(api::kScheduleKind);
  ref["name"] = value::string(schedule);
  ref["uid"] = value::string(uid);
  // The garbage collector deletes the runs and the pool with the schedule.
  ref["controller"] = value::boolean(true);
  ref["blockOwnerDeletion"] = value::boolean(true);
  return ref;
}

value desiredBaselineConfigMap(const std::string& ns, const std::string& schedule,
                               const std::string& scheduleUid, const value& data) {
  value cm = value::object();
  cm["apiVersion"] = value::string("v1");
  cm["kind"] = value::string("ConfigMap");
  value& meta = cm["metadata"];
  meta["name"] = value::string(api::scheduleBaselineConfigMapName(schedule));
  meta["namespace"] = value::string(ns);
  meta["labels"][kBaselineLabel] = value::string("true");
  meta["labels"][api::kScheduleLabel] = value::string(schedule);
  meta["labels"]["app.kubernetes.io/name"] = value::string("distbench");
  meta["labels"]["app.kubernetes.io/managed-by"] = value::string("distbench-operator");
  meta["ownerReferences"] = value::array({scheduleOwnerReference(schedule, scheduleUid)});
  cm["data"] = data;
  return cm;
}

value rowSummaries(const report::Report& run, const report::Report* baseline,
                   std::size_t maxRows) {
  value rows = value::array();
  for (const report::Series& s : run.series) {
    if (s.samples.empty()) continue;
    if (rows.size() >= maxRows) break;
    const report::Summary summary = report::summarize(s.samples);
    value row = value::object();
    row["group"] = value::string(boundedRowName(s.group));
    row["row"] = value::string(boundedRowName(s.row));
    row["p50Seconds"] = value::number(summary.p50);
    row["p95Seconds"] = value::number(summary.p95);
    if (baseline != nullptr) {
      if (const report::Series* b = findRow(*baseline, s); b != nullptr && !b->samples.empty())
        row["baselineP50Seconds"] = value::number(report::summarize(b->samples).p50);
    }
    rows[rows.size()] = row;
  }
  return rows;
}

}  // namespace distbench::op
