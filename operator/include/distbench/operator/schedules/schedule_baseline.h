// A schedule's rolling baseline in the cluster: the pool of
// report/baseline_pool.h (the last N successful, unregressed runs) kept in
// the ConfigMap <schedule>-baseline, owned by the schedule and labelled
// distbench.io/baseline=true. runs.json holds the pooled runs' trimmed
// reports, oldest first; baseline.json is them pooled into one report, which
// each new run's spec.baseline names, so a run is judged by the operator's
// one comparison path (report_store.h) against the recent past.
#pragma once

#include <cpprest/json.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "distbench/operator/benchmarks/run_report.h"
#include "distbench/report/baseline_pool.h"
#include "distbench/report/report.h"

namespace distbench::op {

inline constexpr const char* kPoolRunsKey = "runs.json";
inline constexpr const char* kPoolBaselineKey = "baseline.json";

// The pool the ConfigMap holds; empty when it has no runs.json. A runs.json
// that cannot be read counts as empty, and `problem` says why, so one
// damaged edit restarts the pool rather than stopping the schedule.
std::vector<report::PooledRun> poolFromConfigMap(const web::json::value& configMap,
                                                 std::string* problem = nullptr);

// What the pool's ConfigMap data (both keys and values) may hold: a
// ConfigMap's 1 MiB, less room for its metadata. runs.json and
// baseline.json each hold every pooled sample, so a run whose trimmed
// report is over about half of this never fits, even alone.
inline constexpr std::size_t kMaxPoolDataBytes = kMaxReportConfigMapDataBytes;

struct PoolData {
  // runs.json and the pooled baseline.json; absent when the newest run
  // alone does not fit in kMaxPoolDataBytes.
  std::optional<web::json::value> data;
  // The bytes of `data`, or those the newest run alone would need.
  std::size_t bytes = 0;
};

// The ConfigMap's data for `pool` (oldest first). When it would not fit,
// the oldest runs are left out until it does, and `pool` is cut to what was
// kept; never more than kMaxPoolDataBytes.
PoolData poolData(std::vector<report::PooledRun>& pool);

// The controller reference a schedule puts on its runs and its pool.
web::json::value scheduleOwnerReference(const std::string& schedule, const std::string& uid);

// The whole <schedule>-baseline ConfigMap.
web::json::value desiredBaselineConfigMap(const std::string& ns, const std::string& schedule,
                                          const std::string& scheduleUid,
                                          const web::json::value& data);

// Per-row medians and 95th percentiles of a report, as the schedule's
// status.lastRun.rows has them (at most `maxRows`, their names cut by
// boundedRowName); with `baseline`, each row's pooled median beside it.
web::json::value rowSummaries(const report::Report& run, const report::Report* baseline,
                              std::size_t maxRows);

}  // namespace distbench::op
