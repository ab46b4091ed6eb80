// The Fabric kind as real worker processes: the master's verdict table, a
// report whose "fabric" member holds every node's probe and every pair once
// per size, its series, and the per-node gauges on the master's /metrics.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

#include "distbench/api/presets.h"
#include "distbench/api/worker_env.h"
#include "distbench/report/fabric.h"
#include "distbench/report/report_json.h"
#include "support/local_cluster.h"
#include "support/metrics_scrape.h"

namespace distbench::worker {
namespace {

using testing::LocalCluster;

api::DistBenchmark smallFabric() {
  api::DistBenchmark b = api::preset("fabric");
  b.metadata.name = "fabric-test";
  b.spec.topology.trainers = 4;
  api::FabricSpec& f = b.spec.benchmark.fabric;
  f.messageBytes = {1024, 65536};
  f.samplesPerPair = 3;
  f.computeProbeSize = 64;
  f.computeProbeSamples = 4;
  f.allreduceBytes = 65536;
  f.allreduceIterations = 3;
  return b;
}

TEST(FabricBenchmark, EveryPairAndNodeIsMeasuredReportedAndExported) {
  const std::string summary = ::testing::TempDir() + "/fabric-termination-log";
  std::remove(summary.c_str());
  setenv("DISTBENCH_TERMINATION_LOG", summary.c_str(), 1);
  // trainer2 (rank 3) as a pod would be: its node from the downward API.
  LocalCluster cluster(smallFabric(), {}, /*metricsLingerSeconds=*/30, {}, true,
                       {{3, {{api::kEnvNodeName, "node-c"}}}});
  unsetenv("DISTBENCH_TERMINATION_LOG");
  ASSERT_TRUE(cluster.waitForOutput(0, "report written", std::chrono::seconds(120)))
      << cluster.allOutput();
  const std::string& master = cluster.output(0);
  EXPECT_NE(master.find("distbench fabric"), std::string::npos) << master;
  EXPECT_NE(master.find("trainer3"), std::string::npos) << master;

  const report::Report r = report::loadReportFile(cluster.reportPath());
  EXPECT_EQ(r.kind, "Fabric");
  const report::FabricMeasurements m = report::parseFabric(r.resultsJson, cluster.reportPath());
  ASSERT_EQ(m.nodes.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(m.nodes[i].name, "trainer" + std::to_string(i));
    EXPECT_EQ(m.nodes[i].rank, static_cast<int>(i) + 1);
    // No DISTBENCH_NODE_NAME outside a cluster, but for trainer2.
    EXPECT_EQ(m.nodes[i].node, i == 2 ? "node-c" : "");
    EXPECT_EQ(m.probeSeconds[i].size(), 4u);
  }
  EXPECT_DOUBLE_EQ(m.probeFlop, 2.0 * 64 * 64 * 64);
  std::set<std::tuple<int, int, int64_t>> pairs;
  for (const report::FabricPairSamples& p : m.pairs) {
    EXPECT_TRUE(pairs.insert({p.a, p.b, p.bytes}).second);
    EXPECT_EQ(p.aToB.size(), 3u);
    EXPECT_EQ(p.bToA.size(), 3u);
  }
  EXPECT_EQ(pairs.size(), 6u * 2);  // every pair of 4, once per size
  EXPECT_EQ(m.allreduceSeconds.size(), 3u);
  EXPECT_EQ(m.allreduceBytes, 65536);
  EXPECT_NE(r.resultsJson.find("\"fabricVerdict\""), std::string::npos);

  // The allreduce leads, then a probe per node, then a link per pair and size.
  ASSERT_EQ(r.series.size(), 1u + 4 + 12);
  EXPECT_EQ(r.series[0].group, "allreduce");
  EXPECT_EQ(r.series[0].samples.size(), 3u);
  EXPECT_EQ(r.series[1].group, "compute probe");
  EXPECT_EQ(r.series[1].row, "trainer0");
  EXPECT_EQ(r.series[5].group.rfind("link ", 0), 0u);
  EXPECT_EQ(r.series[5].samples.size(), 6u);

  std::ifstream in(summary);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("\"headline\":\"allreduce 65536\""), std::string::npos) << text.str();

  const std::string metrics = testing::scrape(testing::metricsPort(cluster.output(0)));
  for (const char* family : {"distbench_fabric_link_bandwidth_bytes_per_second{",
                             "distbench_fabric_compute_flops{", "distbench_fabric_node_status{"}) {
    EXPECT_NE(metrics.find(family), std::string::npos) << family << "\n" << metrics;
  }
  EXPECT_NE(metrics.find("node=\"\",trainer=\"trainer3\""), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("node=\"node-c\",trainer=\"trainer2\""), std::string::npos) << metrics;
}

}  // namespace
}  // namespace distbench::worker
