// The DDP kind as real worker processes: the sweep runs, the master prints
// the seed's table and a report with a series per row, a dead rank ends the
// run, and the sweep's gradients really are averaged (replicas agree).
#include <csignal>
#include <gtest/gtest.h>

#include "distbench/api/presets.h"
#include "distbench/process/binary_runner.h"
#include "distbench/report/report_json.h"
#include "support/cluster_expectations.h"
#include "support/local_cluster.h"
#include "support/tiny_ddp.h"

namespace distbench::worker {
namespace {

using testing::LocalCluster;
using testing::expectAllSucceeded;

api::DistBenchmark smallSweep(int trainers) {
  api::DistBenchmark b = testing::tinyDdpSweep("ddp-test", trainers);
  b.spec.runtime.peerTimeoutSeconds = 10;
  return b;
}

TEST(DdpBenchmark, SweepPrintsTheSeedTableAndReportsEveryRow) {
  api::DistBenchmark b = smallSweep(3);
  b.spec.benchmark.ddp.models = {"smallcnn", "resnet18"};
  LocalCluster cluster(b);
  cluster.waitAll(std::chrono::seconds(240));
  expectAllSucceeded(cluster);
  const std::string& master = cluster.output(0);
  EXPECT_NE(master.find("PyTorch distributed benchmark suite"), std::string::npos) << master;
  EXPECT_NE(master.find("Benchmark: smallcnn with batch size 4"), std::string::npos) << master;
  EXPECT_NE(master.find("Benchmark: resnet18 with batch size 4"), std::string::npos) << master;
  for (const char* row : {"   1 ranks --   no ddp:  p50:", "   1 ranks --    1M/1R:  p50:",
                          "   2 ranks --    1M/2R:  p50:", "   3 ranks --    1M/3R:  p50:"}) {
    EXPECT_NE(master.find(row), std::string::npos) << row << " missing in\n" << master;
  }

  const report::Report r = report::loadReportFile(cluster.reportPath());
  EXPECT_EQ(r.kind, "DDP");
  EXPECT_EQ(r.parameterServers, 0);
  ASSERT_EQ(r.series.size(), 8u);  // 2 models x 4 rows
  const size_t rows[] = {1, 1, 2, 3};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(r.series[i].ranks, static_cast<int>(rows[i]));
    // Every participating rank's measured iterations, warm-up excluded.
    EXPECT_EQ(r.series[i].samples.size(), rows[i] * 3) << r.series[i].row;
    for (double s : r.series[i].samples) EXPECT_GT(s, 0);
  }
  EXPECT_EQ(r.series[4].group, "resnet18 with batch size 4");
  EXPECT_NE(r.resultsJson.find("\"parameters\":11689512"), std::string::npos);

  // The report is what `distbench diff` reads: a run against itself.
  const process::BinaryResult diff = process::runCaptured(
      std::string(DISTBENCH_BINARY) + " diff " + cluster.reportPath() + " " +
          cluster.reportPath() + " --threshold 1",
      cluster.reportPath() + ".diff.out", cluster.reportPath() + ".diff.err");
  EXPECT_EQ(diff.exitCode, 0) << diff.out << diff.err;
  EXPECT_NE(diff.out.find("Benchmark: resnet18 with batch size 4"), std::string::npos) << diff.out;
  EXPECT_NE(diff.out.find("1M/3R"), std::string::npos) << diff.out;
}

TEST(DdpBenchmark, KilledRankEndsTheSweepNamingIt) {
  api::DistBenchmark b = smallSweep(3);
  b.spec.benchmark.ddp.models = {"resnet18"};
  b.spec.benchmark.ddp.iterations = 80;  // rows of several seconds: killed mid-row
  b.spec.runtime.peerTimeoutSeconds = 3;
  LocalCluster cluster(b);
  ASSERT_TRUE(cluster.waitForOutput(0, "no ddp", std::chrono::seconds(120))) << cluster.allOutput();
  // trainer2 sits idle until the 3-rank row while trainer0 trains 1M/1R
  // alone: nothing but the master's heartbeat watch can notice.
  cluster.kill(3, SIGKILL);
  const auto took = cluster.waitAll(std::chrono::seconds(60));
  EXPECT_LT(took, std::chrono::seconds(15));
  for (int r : {0, 1, 2}) {
    ASSERT_TRUE(cluster.exitStatus(r).has_value()) << "rank " << r << " hangs";
    EXPECT_FALSE(cluster.exitStatus(r)->success()) << cluster.output(r);
  }
  EXPECT_NE(cluster.allOutput().find("trainer2 (rank 3)"), std::string::npos)
      << cluster.allOutput();
}

}  // namespace
}  // namespace distbench::worker
