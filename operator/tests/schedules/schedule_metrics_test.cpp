// The per-schedule gauges, read from cached schedules as the text a
// Prometheus scrape gets.
#include <gtest/gtest.h>
#include <prometheus/metric_family.h>
#include <prometheus/text_serializer.h>

#include "distbench/operator/schedules/schedule_metrics.h"
#include "distbench/operator/schedules/schedule_row_name.h"

namespace distbench::op {
namespace {

using web::json::value;

std::string scrape(const std::vector<value>& schedules) {
  ScheduleMetrics metrics;
  return prometheus::TextSerializer().Serialize(metrics.collect(schedules));
}

bool has(const std::string& text, const std::string& line) {
  return text.find(line + "\n") != std::string::npos;
}

const value kSchedule = value::parse(R"({
  "metadata": {"name": "nightly", "namespace": "team-a",
               "creationTimestamp": "2026-11-20T00:00:00Z"},
  "spec": {"schedule": "0 3 * * *", "timeZone": "UTC", "suspend": false},
  "status": {
    "lastScheduleTime": "2026-11-26T03:00:00Z",
    "nextScheduleTime": "2026-11-27T03:00:00Z",
    "lastSuccessfulTime": "2026-11-26T03:01:40Z",
    "consecutiveFailures": 0,
    "baseline": {"configMap": "nightly-baseline", "runs": ["a", "b"], "thresholdPercent": 5},
    "lastRun": {"name": "nightly-29444580", "verdict": "Regression",
                "rows": [{"group": "HybridDDPRPC", "row": "All", "p50Seconds": 0.5,
                          "p95Seconds": 0.75, "baselineP50Seconds": 0.25}]}}})");

TEST(ScheduleMetricsTest, EveryGaugeOfAScheduleWithARun) {
  const std::string text = scrape({kSchedule});
  const std::string id = R"(namespace="team-a",schedule="nightly")";
  const std::string row = id + R"(,group="HybridDDPRPC",row="All")";
  EXPECT_TRUE(has(text, "distbench_schedule_regression{" + id + "} 1")) << text;
  EXPECT_TRUE(has(text, "distbench_schedule_suspended{" + id + "} 0")) << text;
  EXPECT_TRUE(has(text, "distbench_schedule_consecutive_failures{" + id + "} 0")) << text;
  EXPECT_TRUE(has(text, "distbench_schedule_regression_threshold_ratio{" + id + "} 0.05")) << text;
  EXPECT_TRUE(has(text, "distbench_schedule_expected_interval_seconds{" + id + "} 86400")) << text;
  EXPECT_TRUE(has(text, "distbench_schedule_last_successful_run_timestamp_seconds{" + id +
                            "} 1795662100"))
      << text;
  EXPECT_TRUE(has(text, "distbench_schedule_last_schedule_timestamp_seconds{" + id +
                            "} 1795662000"))
      << text;
  EXPECT_TRUE(has(text, "distbench_schedule_last_run_p50_seconds{" + row + "} 0.5")) << text;
  EXPECT_TRUE(has(text, "distbench_schedule_last_run_p95_seconds{" + row + "} 0.75")) << text;
  EXPECT_TRUE(has(text, "distbench_schedule_baseline_p50_seconds{" + row + "} 0.25")) << text;
  EXPECT_NE(text.find("# TYPE distbench_schedule_regression gauge"), std::string::npos);
}

TEST(ScheduleMetricsTest, ANewScheduleCountsStalenessFromItsCreation) {
  const value fresh = value::parse(R"({
    "metadata": {"name": "new", "namespace": "team-a",
                 "creationTimestamp": "2026-11-20T00:00:00Z"},
    "spec": {"schedule": "*/5 * * * *", "suspend": true},
    "status": {"nextScheduleTime": "2026-11-20T00:05:00Z"}})");
  const std::string text = scrape({fresh});
  const std::string id = R"(namespace="team-a",schedule="new")";
  EXPECT_TRUE(has(text, "distbench_schedule_last_successful_run_timestamp_seconds{" + id +
                            "} 1795132800"))
      << text;
  EXPECT_TRUE(has(text, "distbench_schedule_suspended{" + id + "} 1")) << text;
  EXPECT_TRUE(has(text, "distbench_schedule_expected_interval_seconds{" + id + "} 300")) << text;
  // No run has finished: no verdict, no rows.
  EXPECT_EQ(text.find("distbench_schedule_regression{"), std::string::npos) << text;
  EXPECT_EQ(text.find("distbench_schedule_last_run_p50_seconds"), std::string::npos) << text;
}

TEST(ScheduleMetricsTest, AnInvalidScheduleHasNoInterval) {
  value bad = kSchedule;
  bad["spec"]["schedule"] = value::string("61 * * * *");
  EXPECT_EQ(scrape({bad}).find("distbench_schedule_expected_interval_seconds"), std::string::npos);
}

// A status written by an older operator (or edited) may hold names of any
// length: the labels are cut as the status is, and two rows that are then
// one label set are one series (a duplicate fails the whole scrape).
TEST(ScheduleMetricsTest, RowLabelsAreBoundedAndNeverDuplicated) {
  value s = kSchedule;
  const std::string longGroup(1000, 'g');
  value rows = value::array();
  rows[0] = value::parse(R"({"row": "All", "p50Seconds": 0.5})");
  rows[0]["group"] = value::string(longGroup);
  rows[1] = value::parse(R"({"row": "All", "p50Seconds": 0.7})");
  rows[1]["group"] = value::string(longGroup);
  rows[2] = value::parse(R"({"group": "HybridDDPRPC", "p50Seconds": 0.25})");
  rows[2]["row"] = value::string(std::string(200, 'r') + "\n\"");
  s["status"]["lastRun"]["rows"] = rows;
  const std::string text = scrape({s});
  const std::string id = R"(namespace="team-a",schedule="nightly")";
  const std::string group = boundedRowName(longGroup);
  ASSERT_EQ(group.size(), kMaxRowNameBytes);
  EXPECT_TRUE(has(text, "distbench_schedule_last_run_p50_seconds{" + id + R"(,group=")" + group +
                            R"(",row="All"} 0.5)"))
      << text;
  EXPECT_EQ(text.find("} 0.7\n"), std::string::npos) << text;
  EXPECT_EQ(text.find(longGroup), std::string::npos);
  EXPECT_EQ(text.find(std::string(200, 'r')), std::string::npos);
  EXPECT_NE(text.find(std::string(119, 'r') + "~"), std::string::npos) << text;
}

}  // namespace
}  // namespace distbench::op
