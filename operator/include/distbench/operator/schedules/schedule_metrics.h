// The per-schedule gauges of docs/metrics.md ("Schedule metrics"), built at
// each scrape from the cached DistBenchmarkSchedules' status, so that they
// hold whatever replica serves them and vanish with the schedule. The
// alerting rules (charts/distbench-operator/rules/) are written against
// these names.
#pragma once

#include <cpprest/json.h>

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "distbench/kube/rfc3339.h"

namespace prometheus {
struct MetricFamily;
}

namespace distbench::op {

class ScheduleMetrics {
 public:
  // `schedules`: as the schedule informer caches them (trimmed spec, whole
  // status); `now` for the expected interval's reference point.
  std::vector<prometheus::MetricFamily> collect(const std::vector<web::json::value>& schedules);

 private:
  // Seconds between the schedule's next firing and the one after.
  std::optional<double> intervalSeconds(const web::json::value& schedule);

  std::mutex mutex_;
  // "<schedule text>|<zone>|<next firing>" -> interval, so a scrape parses
  // a schedule and reads its zone only when its next firing moved.
  std::map<std::string, std::optional<double>> intervals_;
};

}  // namespace distbench::op
