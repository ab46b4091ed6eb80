// Every rank serves /metrics; after the run the samples stay up for the
// linger, so a scraper that comes late still sees the final counts.
#include <gtest/gtest.h>

#include <string>

#include "distbench/api/presets.h"
#include "distbench/process/free_ports.h"
#include "support/local_cluster.h"
#include "support/metrics_scrape.h"

namespace distbench::worker {
namespace {

using std::chrono::seconds;

using testing::metricsPort;
using testing::sampleValue;
using testing::scrape;

TEST(Metrics, EveryRoleServesItsHistogramsDuringTheLinger) {
  api::DistBenchmark b = api::preset("tutorial");
  b.metadata.name = "scrape";
  b.spec.benchmark.hybridDDPRPC.epochs = 4;
  b.spec.benchmark.hybridDDPRPC.warmupEpochs = 1;
  b.spec.runtime.metricsLingerSeconds = 30;
  testing::LocalCluster cluster(b, {}, /*metricsLingerSeconds=*/30);
  ASSERT_TRUE(cluster.waitForOutput(0, "     All:", seconds(60))) << cluster.allOutput();
  // Trainers report their last epoch before the master prints; give the
  // parameter servers the moment it takes to serve the final Done.
  ASSERT_TRUE(cluster.waitForOutput(1, "joined", seconds(5)));

  const std::string trainer = scrape(metricsPort(cluster.output(2)));
  const std::string labels = "{benchmark=\"scrape\",rank=\"2\",role=\"trainer\"}";
  EXPECT_EQ(sampleValue(trainer, "distbench_epoch_seconds_count" + labels), 4) << trainer;
  EXPECT_EQ(sampleValue(trainer, "distbench_warmup_epochs_total" + labels), 1) << trainer;
  EXPECT_EQ(sampleValue(trainer, "distbench_iteration_seconds_count" + labels), 5 * 10);
  for (const char* family :
       {"distbench_forward_seconds_bucket", "distbench_backward_seconds_bucket",
        "distbench_allreduce_seconds_bucket", "distbench_allreduce_wait_seconds_bucket",
        "distbench_optimizer_step_seconds_bucket", "distbench_examples_total",
        "distbench_allreduce_bytes_total"}) {
    EXPECT_NE(trainer.find(family), std::string::npos) << family;
  }
  for (const char* op : {"lookup", "push_grad", "step"}) {
    // prometheus-cpp writes the constant labels first.
    const std::string count =
        "distbench_rpc_seconds_count{benchmark=\"scrape\",rank=\"2\",role=\"trainer\",op=\"" +
        std::string(op) + "\"}";
    // One call per batch to the single shard.
    EXPECT_EQ(sampleValue(trainer, count), 5 * 10) << count << "\n" << trainer;
  }
  EXPECT_GT(sampleValue(trainer,
                        "distbench_rpc_bytes_total{benchmark=\"scrape\",rank=\"2\","
                        "role=\"trainer\",direction=\"sent\",op=\"push_grad\"}"),
            0);

  const std::string ps = scrape(metricsPort(cluster.output(1)));
  for (const char* op : {"lookup", "push_grad", "step"}) {
    const std::string count =
        "distbench_ps_service_seconds_count{benchmark=\"scrape\",rank=\"1\",role=\"ps\",op=\"" +
        std::string(op) + "\"}";
    // Both trainers' batches.
    EXPECT_EQ(sampleValue(ps, count), 2 * 5 * 10) << count << "\n" << ps;
  }

  // Each role shows only its own families.
  EXPECT_EQ(ps.find("distbench_epoch_seconds"), std::string::npos);
  EXPECT_EQ(trainer.find("distbench_ps_service_seconds"), std::string::npos);

  const std::string master = scrape(metricsPort(cluster.output(0)));
  EXPECT_NE(master.find("distbench_build_info{benchmark=\"scrape\",rank=\"0\",role=\"master\""),
            std::string::npos)
      << master;
}

// A rank whose /metrics port is taken runs anyway, saying why it serves
// nothing; the run's report comes out as without the clash.
TEST(Metrics, ARankWhoseMetricsPortIsTakenStillRuns) {
  process::LoopbackPort taken;
  taken.listen();

  api::DistBenchmark b = api::preset("tutorial");
  b.metadata.name = "taken-port";
  b.spec.benchmark.hybridDDPRPC.epochs = 2;
  b.spec.benchmark.hybridDDPRPC.warmupEpochs = 1;
  testing::LocalCluster cluster(b, {}, 0, {}, /*reportFile=*/true,
                                {{2, {{"DISTBENCH_METRICS_PORT", std::to_string(taken.port())}}}});
  cluster.waitAll(seconds(90));
  for (int rank = 0; rank < cluster.worldSize(); ++rank) {
    ASSERT_TRUE(cluster.exitStatus(rank).has_value()) << cluster.allOutput();
    EXPECT_EQ(cluster.exitStatus(rank)->code, 0) << cluster.allOutput();
  }
  EXPECT_NE(cluster.output(2).find("warning: metrics: cannot serve on"), std::string::npos)
      << cluster.output(2);
  EXPECT_NE(cluster.output(2).find("this rank runs without /metrics"), std::string::npos);
  EXPECT_NE(cluster.output(0).find("     All:"), std::string::npos) << cluster.output(0);
}

// A DDP sweep trains the same model at several world sizes; each gets its
// own series so a dashboard never mixes a 1-rank and an 8-rank iteration.
TEST(Metrics, DdpSeriesAreLabelledByModelAndWorldSize) {
  api::DistBenchmark b = api::preset("ddp-cpu");
  b.metadata.name = "scrape-ddp";
  b.spec.benchmark.ddp.models = {"smallcnn"};
  b.spec.benchmark.ddp.batchSize = 4;
  b.spec.benchmark.ddp.imageSize = 32;
  b.spec.benchmark.ddp.warmupIterations = 1;
  b.spec.benchmark.ddp.iterations = 3;
  testing::LocalCluster cluster(b, {}, /*metricsLingerSeconds=*/30);
  ASSERT_TRUE(cluster.waitForOutput(0, "1M/2R:", seconds(120))) << cluster.allOutput();

  auto series = [](const std::string& family, int rank, int worldSize) {
    return family + "{benchmark=\"scrape-ddp\",rank=\"" + std::to_string(rank) +
           "\",role=\"trainer\",model=\"smallcnn\",world_size=\"" +
           std::to_string(worldSize) + "\"}";
  };
  const std::string trainer0 = scrape(metricsPort(cluster.output(1)));
  // Rows: no ddp (world_size 0: no DDP at all), 1M/1R, 1M/2R; 3 measured each.
  for (int worldSize : {0, 1, 2}) {
    EXPECT_EQ(sampleValue(trainer0, series("distbench_iteration_seconds_count", 1, worldSize)), 3)
        << worldSize << "\n" << trainer0;
    // Warm-up included: 4 iterations of 4 examples.
    EXPECT_EQ(sampleValue(trainer0, series("distbench_examples_total", 1, worldSize)), 16);
  }
  EXPECT_EQ(sampleValue(trainer0, series("distbench_allreduce_seconds_count", 1, 0)), 0);
  EXPECT_GT(sampleValue(trainer0, series("distbench_allreduce_seconds_count", 1, 2)), 0);
  const std::string trainer1 = scrape(metricsPort(cluster.output(2)));
  EXPECT_EQ(sampleValue(trainer1, series("distbench_iteration_seconds_count", 2, 2)), 3);
  EXPECT_EQ(sampleValue(trainer1, series("distbench_iteration_seconds_count", 2, 1)), -1)
      << "trainer1 sits out the 1-rank rows";
  EXPECT_EQ(trainer0.find("distbench_rpc_seconds"), std::string::npos)
      << "no parameter-server families in a DDP run";
}

}  // namespace
}  // namespace distbench::worker
