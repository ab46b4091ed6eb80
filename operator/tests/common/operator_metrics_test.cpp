// The operator's /metrics text read back as Prometheus would: each family
// under the name the dashboard and docs use, with the values that known calls
// must leave. (Informer counters that actually move need an API server:
// operator_metrics_kube_test.cpp.)
#include "distbench/operator/common/operator_metrics.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <sstream>
#include <string>

#include "distbench/kube/informer.h"
#include "distbench/kube/work_queue.h"

namespace distbench::op {
namespace {

using namespace std::chrono_literals;

// "series{labels}" -> value, for every sample line; "# TYPE name" -> type.
std::map<std::string, std::string> parse(const std::string& text) {
  std::map<std::string, std::string> samples;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# TYPE ", 0) == 0) {
      const std::size_t space = line.rfind(' ');
      samples[line.substr(0, space)] = line.substr(space + 1);
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    const std::size_t space = line.rfind(' ');
    samples[line.substr(0, space)] = line.substr(space + 1);
  }
  return samples;
}

double sample(const std::map<std::string, std::string>& samples, const std::string& series) {
  const auto it = samples.find(series);
  if (it == samples.end()) {
    ADD_FAILURE() << "no sample " << series;
    return -1;
  }
  return std::stod(it->second);
}

TEST(OperatorMetrics, EveryFamilyIsExposedWithItsType) {
  OperatorMetrics metrics;
  const auto s = parse(metrics.scrape());
  const std::map<std::string, std::string> types = {
      {"distbench_operator_reconcile_duration_seconds", "histogram"},
      {"distbench_operator_reconcile_errors_total", "counter"},
      {"distbench_operator_workqueue_depth", "gauge"},
      {"distbench_operator_workqueue_adds_total", "counter"},
      {"distbench_operator_workqueue_queue_duration_seconds", "histogram"},
      {"distbench_operator_workqueue_work_duration_seconds", "histogram"},
      {"distbench_operator_workqueue_retries_total", "counter"},
      {"distbench_operator_leader", "gauge"},
      {"distbench_operator_benchmarks", "gauge"},
  };
  for (const auto& [name, type] : types) {
    const auto it = s.find("# TYPE " + name);
    ASSERT_NE(it, s.end()) << name;
    EXPECT_EQ(it->second, type) << name;
  }
  // Series that exist before anything happens, so that rate() and alerts see
  // a 0 rather than nothing.
  EXPECT_EQ(sample(s, "distbench_operator_reconcile_duration_seconds_count{result=\"error\"}"), 0);
  EXPECT_EQ(sample(s, "distbench_operator_reconcile_errors_total"), 0);
  EXPECT_EQ(sample(s, "distbench_operator_leader"), 0);
  EXPECT_EQ(sample(s, "distbench_operator_benchmarks{phase=\"Running\"}"), 0);
}

TEST(OperatorMetrics, ReconcilesAreCountedByResultWithErrorsAlsoInTheErrorCounter) {
  OperatorMetrics metrics;
  metrics.observeReconcile(3ms, ReconcileOutcome::Success);
  metrics.observeReconcile(0.25s, ReconcileOutcome::Success);
  metrics.observeReconcile(2s, ReconcileOutcome::Error);
  metrics.observeReconcile(1ms, ReconcileOutcome::Requeue);
  const auto s = parse(metrics.scrape());
  const std::string h = "distbench_operator_reconcile_duration_seconds";
  EXPECT_EQ(sample(s, h + "_count{result=\"success\"}"), 2);
  EXPECT_DOUBLE_EQ(sample(s, h + "_sum{result=\"success\"}"), 0.253);
  EXPECT_EQ(sample(s, h + "_count{result=\"error\"}"), 1);
  EXPECT_EQ(sample(s, h + "_count{result=\"requeue\"}"), 1);
  EXPECT_EQ(sample(s, "distbench_operator_reconcile_errors_total"), 1);
  // Buckets from 1 ms to 10 s, printed as written.
  EXPECT_EQ(sample(s, h + "_bucket{result=\"success\",le=\"0.001\"}"), 0);
  EXPECT_EQ(sample(s, h + "_bucket{result=\"success\",le=\"0.005\"}"), 1);
  EXPECT_EQ(sample(s, h + "_bucket{result=\"success\",le=\"0.5\"}"), 2);
  EXPECT_EQ(sample(s, h + "_bucket{result=\"error\",le=\"1\"}"), 0);
  EXPECT_EQ(sample(s, h + "_bucket{result=\"error\",le=\"10\"}"), 1);
  EXPECT_EQ(sample(s, h + "_bucket{result=\"error\",le=\"+Inf\"}"), 1);
}

TEST(OperatorMetrics, WorkQueueHooksMoveDepthAddsDurationsAndRetries) {
  auto observer = std::make_shared<OperatorMetrics>();
  OperatorMetrics& metrics = *observer;
  kube::WorkQueueOptions options;
  options.observer = observer;
  kube::WorkQueue queue(options);
  queue.add("ns/a");
  queue.add("ns/b");
  queue.add("ns/a");  // absorbed: already waiting
  auto s = parse(metrics.scrape());
  EXPECT_EQ(sample(s, "distbench_operator_workqueue_depth"), 2);
  EXPECT_EQ(sample(s, "distbench_operator_workqueue_adds_total"), 2);

  ASSERT_EQ(queue.get(0ns), "ns/a");
  queue.done("ns/a");
  queue.addRateLimited("ns/a");  // delayed by its backoff: not in the depth yet
  s = parse(metrics.scrape());
  EXPECT_EQ(sample(s, "distbench_operator_workqueue_depth"), 1);
  EXPECT_EQ(sample(s, "distbench_operator_workqueue_queue_duration_seconds_count"), 1);
  EXPECT_EQ(sample(s, "distbench_operator_workqueue_work_duration_seconds_count"), 1);
  EXPECT_EQ(sample(s, "distbench_operator_workqueue_retries_total"), 1);
  queue.shutDown();
}

TEST(OperatorMetrics, LeaderGaugeFollowsSetLeader) {
  OperatorMetrics metrics;
  metrics.setLeader(true);
  EXPECT_EQ(sample(parse(metrics.scrape()), "distbench_operator_leader"), 1);
  metrics.setLeader(false);
  EXPECT_EQ(sample(parse(metrics.scrape()), "distbench_operator_leader"), 0);
}

TEST(OperatorMetrics, BenchmarkPhasesMissingFromAnUpdateGoToZero) {
  OperatorMetrics metrics;
  metrics.setBenchmarkPhases({{"Running", 3}, {"Failed", 1}});
  auto s = parse(metrics.scrape());
  EXPECT_EQ(sample(s, "distbench_operator_benchmarks{phase=\"Running\"}"), 3);
  EXPECT_EQ(sample(s, "distbench_operator_benchmarks{phase=\"Failed\"}"), 1);
  EXPECT_EQ(sample(s, "distbench_operator_benchmarks{phase=\"Pending\"}"), 0);

  metrics.setBenchmarkPhases({{"Succeeded", 4}});
  s = parse(metrics.scrape());
  EXPECT_EQ(sample(s, "distbench_operator_benchmarks{phase=\"Running\"}"), 0);
  EXPECT_EQ(sample(s, "distbench_operator_benchmarks{phase=\"Failed\"}"), 0);
  EXPECT_EQ(sample(s, "distbench_operator_benchmarks{phase=\"Succeeded\"}"), 4);
}

// The informer families have a series per registered resource, and none
// before: prometheus-cpp leaves a family without series out of the text.
TEST(OperatorMetrics, AnInformerThatNeverRanReadsZero) {
  kube::KubeConfig config;
  config.server = "https://127.0.0.1:1";
  kube::KubeClient client(config);
  kube::Informer pods(client, kube::corePath("", "pods"));
  OperatorMetrics metrics;
  metrics.addInformer("pods", pods);
  const auto s = parse(metrics.scrape());
  EXPECT_EQ(s.at("# TYPE distbench_operator_watch_restarts_total"), "counter");
  EXPECT_EQ(s.at("# TYPE distbench_operator_relists_total"), "counter");
  EXPECT_EQ(sample(s, "distbench_operator_watch_restarts_total{resource=\"pods\"}"), 0);
  EXPECT_EQ(sample(s, "distbench_operator_relists_total{resource=\"pods\"}"), 0);
}

}  // namespace
}  // namespace distbench::op
