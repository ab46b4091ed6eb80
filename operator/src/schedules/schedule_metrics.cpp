#include "distbench/operator/schedules/schedule_metrics.h"

#include <prometheus/metric_family.h>

#include <set>
#include <utility>

#include "distbench/api/schedule_spec.h"
#include "distbench/api/time_zone.h"
#include "distbench/kube/json_fields.h"
#include "distbench/operator/schedules/schedule_row_name.h"

namespace distbench::op {
namespace {

using web::json::value;
using prometheus::ClientMetric;
using prometheus::MetricFamily;

double unixSeconds(kube::SystemTime t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

struct Families {
  std::map<std::string, MetricFamily> byName;

  void add(const std::string& name, const std::string& help,
           const std::vector<ClientMetric::Label>& labels, double v) {
    MetricFamily& f = byName[name];
    if (f.name.empty()) {
      f.name = name;
      f.help = help;
      f.type = prometheus::MetricType::Gauge;
    }
    ClientMetric m;
    m.label = labels;
    m.gauge.value = v;
    f.metric.push_back(std::move(m));
  }
};

double number(const value& v) { return v.is_number() ? v.as_number().to_double() : 0; }

}  // namespace

std::optional<double> ScheduleMetrics::intervalSeconds(const value& schedule) {
  const value empty = value::object();
  const value& spec = schedule.has_field("spec") ? schedule.at("spec") : empty;
  const std::string text = kube::stringField(spec, "schedule");
  std::string zoneName = kube::stringField(spec, "timeZone");
  if (zoneName.empty()) zoneName = "UTC";
  const std::string next = kube::stringField(schedule, "status", "nextScheduleTime");
  const auto at = kube::parseRfc3339(next);
  if (!at) return std::nullopt;
  const std::string key = text + "|" + zoneName + "|" + next;
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = intervals_.find(key); it != intervals_.end()) return it->second;
  std::optional<double> interval;
  try {
    const std::optional<api::ScheduleTiming> timing = api::parseScheduleTiming(text, zoneName);
    if (const auto after = timing ? timing->cron.next(*at, timing->zone) : std::nullopt)
      interval = std::chrono::duration<double>(*after - *at).count();
  } catch (const std::exception&) {
    // An invalid schedule has no interval; its Valid condition says why.
  }
  if (intervals_.size() > 4096) intervals_.clear();
  intervals_[key] = interval;
  return interval;
}

std::vector<MetricFamily> ScheduleMetrics::collect(const std::vector<value>& schedules) {
  Families f;
  for (const value& s : schedules) {
    const value empty = value::object();
    const value& meta = s.has_field("metadata") ? s.at("metadata") : empty;
    const value& status = s.has_field("status") ? s.at("status") : empty;
    const std::vector<ClientMetric::Label> id = {
        {"namespace", kube::stringField(meta, "namespace")},
        {"schedule", kube::stringField(meta, "name")}};
    const value* suspend = kube::fieldOf(s.has_field("spec") ? s.at("spec") : empty, "suspend");
    f.add("distbench_schedule_suspended", "1 while the schedule is suspended, else 0.", id,
          suspend != nullptr && suspend->is_boolean() && suspend->as_bool() ? 1 : 0);
    f.add("distbench_schedule_consecutive_failures",
          "Runs of the schedule that failed in a row, up to its last finished run.", id,
          static_cast<double>(kube::intField(status, "consecutiveFailures", 0)));
    // The creation time while nothing has succeeded: staleness then counts
    // from when the schedule could first have run.
    const auto success = kube::parseRfc3339(kube::stringField(status, "lastSuccessfulTime"));
    const auto created = kube::parseRfc3339(kube::stringField(meta, "creationTimestamp"));
    if (success || created)
      f.add("distbench_schedule_last_successful_run_timestamp_seconds",
            "Unix time the schedule's last successful run finished (its creation time while "
            "none has).",
            id, unixSeconds(success ? *success : *created));
    if (const auto last = kube::parseRfc3339(kube::stringField(status, "lastScheduleTime")))
      f.add("distbench_schedule_last_schedule_timestamp_seconds",
            "Unix time of the firing the schedule's last run was started for.", id,
            unixSeconds(*last));
    if (const auto interval = intervalSeconds(s))
      f.add("distbench_schedule_expected_interval_seconds",
            "Seconds between the schedule's next firing and the one after it.", id, *interval);
    const value* lastRun = kube::fieldOf(status, "lastRun");
    if (lastRun == nullptr) continue;
    f.add("distbench_schedule_regression",
          "1 when the schedule's last finished run regressed against its rolling baseline, "
          "else 0.",
          id, kube::stringField(*lastRun, "verdict") == "Regression" ? 1 : 0);
    if (const value* t = kube::fieldOf(status, "baseline");
        t != nullptr && t->has_field("thresholdPercent"))
      f.add("distbench_schedule_regression_threshold_ratio",
            "The slowdown of a row's median, as a fraction, past which a significant change "
            "counts as a regression.",
            id, number(t->at("thresholdPercent")) / 100.0);
    const value* rows = kube::fieldOf(*lastRun, "rows");
    if (rows == nullptr || !rows->is_array()) continue;
    // Cut again here: a status written by an older operator, or edited,
    // may hold longer names. Two rows with one label set would be a
    // duplicate series, which fails the whole scrape: the first is kept.
    std::set<std::pair<std::string, std::string>> seen;
    for (const value& row : rows->as_array()) {
      const std::string group = boundedRowName(kube::stringField(row, "group"));
      const std::string name = boundedRowName(kube::stringField(row, "row"));
      if (!seen.emplace(group, name).second) continue;
      std::vector<ClientMetric::Label> labels = id;
      labels.push_back({"group", group});
      labels.push_back({"row", name});
      if (const value* v = kube::fieldOf(row, "p50Seconds"))
        f.add("distbench_schedule_last_run_p50_seconds",
              "Median seconds per sample of each row of the schedule's last finished run (absent after a failed one).",
              labels, number(*v));
      if (const value* v = kube::fieldOf(row, "p95Seconds"))
        f.add("distbench_schedule_last_run_p95_seconds",
              "95th percentile seconds per sample of each row of the schedule's last finished "
              "run (absent after a failed one).",
              labels, number(*v));
      if (const value* v = kube::fieldOf(row, "baselineP50Seconds"))
        f.add("distbench_schedule_baseline_p50_seconds",
              "Median seconds per sample of each row over the pooled runs the last run was "
              "compared with.",
              labels, number(*v));
    }
  }
  std::vector<MetricFamily> out;
  for (auto& [name, family] : f.byName) out.push_back(std::move(family));
  return out;
}

}  // namespace distbench::op
