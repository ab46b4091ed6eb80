// The informer counters in /metrics against informers that really restart
// their watches (the API server ends each after a second here): every scrape
// must report what the informer has counted, not just what it counted since
// the last scrape or at registration.
#include <gtest/gtest.h>

#include <functional>
#include <sstream>
#include <thread>

#include "distbench/kube/informer.h"
#include "distbench/operator/common/operator_metrics.h"
#include "distbench/process/temp_dir.h"
#include "distbench/testing/kube/kube_test_env.h"

namespace distbench::op {
namespace {

using namespace std::chrono_literals;

// The value of the sample line that starts with `series` and a space.
double sample(const std::string& text, const std::string& series) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(series + " ", 0) == 0) return std::stod(line.substr(series.size() + 1));
  }
  ADD_FAILURE() << "no sample " << series << " in\n" << text;
  return -1;
}

bool waitUntil(const std::function<bool()>& done, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

class OperatorMetricsKubeTest : public kubetest::KubeTest {};

TEST_F(OperatorMetricsKubeTest, ScrapedWatchRestartsAndRelistsFollowTheInformers) {
  process::TempDir dir("operator-metrics-test-");
  cluster_->writeKubeconfig(dir.path() + "/kubeconfig");
  kube::KubeClient client(kube::loadKubeconfig(dir.path() + "/kubeconfig"));
  kube::Informer::Options restless;
  restless.watchTimeoutSeconds = 1;
  kube::Informer configMaps(client, kube::corePath("default", "configmaps"), "", restless);
  kube::Informer secrets(client, kube::corePath("default", "secrets"));
  OperatorMetrics metrics;
  metrics.addInformer("secrets", secrets);
  configMaps.start();
  secrets.start();
  // Registered after it has already restarted: those restarts count too.
  ASSERT_TRUE(waitUntil([&] { return configMaps.watchRestarts() >= 1; }, 30s));
  metrics.addInformer("configmaps", configMaps);

  for (int64_t atLeast : {1, 3}) {
    ASSERT_TRUE(waitUntil([&] { return configMaps.watchRestarts() >= atLeast; }, 30s));
    // The informer may restart again while the scrape runs.
    const int64_t before = configMaps.watchRestarts();
    const std::string text = metrics.scrape();
    const int64_t after = configMaps.watchRestarts();
    const double restarts =
        sample(text, "distbench_operator_watch_restarts_total{resource=\"configmaps\"}");
    EXPECT_GE(restarts, before);
    EXPECT_LE(restarts, after);
    EXPECT_EQ(sample(text, "distbench_operator_relists_total{resource=\"configmaps\"}"),
              configMaps.relists());
    EXPECT_EQ(sample(text, "distbench_operator_watch_restarts_total{resource=\"secrets\"}"),
              secrets.watchRestarts());
  }
  configMaps.stop();
  secrets.stop();
}

}  // namespace
}  // namespace distbench::op
