// The Collectives kind as real worker processes: every op's table, a report
// with a series per op, dtype and size, and per-size metrics.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "distbench/api/presets.h"
#include "distbench/report/report_json.h"
#include "support/local_cluster.h"
#include "support/metrics_scrape.h"

namespace distbench::worker {
namespace {

using testing::LocalCluster;

api::DistBenchmark smallCollectives() {
  api::DistBenchmark b = api::preset("collectives");
  b.metadata.name = "coll-test";
  b.spec.topology.trainers = 3;
  b.spec.benchmark.collectives.dtypes = {api::DType::Float32, api::DType::Int64};
  b.spec.benchmark.collectives.minBytes = 1024;
  b.spec.benchmark.collectives.maxBytes = 65536;
  b.spec.benchmark.collectives.stepFactor = 8;  // 1 KiB, 8 KiB, 64 KiB
  b.spec.benchmark.collectives.warmupIterations = 1;
  b.spec.benchmark.collectives.iterations = 4;
  return b;
}

TEST(CollectivesBenchmark, EveryOpDtypeAndSizeIsTabledReportedAndScraped) {
  // Where Kubernetes would read the master's termination message.
  const std::string summary = ::testing::TempDir() + "/coll-termination-log";
  std::remove(summary.c_str());
  setenv("DISTBENCH_TERMINATION_LOG", summary.c_str(), 1);
  LocalCluster cluster(smallCollectives(), {}, /*metricsLingerSeconds=*/30);
  unsetenv("DISTBENCH_TERMINATION_LOG");
  ASSERT_TRUE(
      cluster.waitForOutput(0, "Benchmark: sendrecv int64 on 3 ranks", std::chrono::seconds(120)))
      << cluster.allOutput();
  ASSERT_TRUE(cluster.waitForOutput(0, "report written", std::chrono::seconds(30)));
  const std::string& master = cluster.output(0);
  for (const char* op : {"allreduce", "allgather", "broadcast", "reduce", "scatter", "gather",
                         "reducescatter", "alltoall", "sendrecv"}) {
    EXPECT_NE(master.find("Benchmark: " + std::string(op) + " float32 on 3 ranks"),
              std::string::npos)
        << op << "\n"
        << master;
  }

  const report::Report r = report::loadReportFile(cluster.reportPath());
  EXPECT_EQ(r.kind, "Collectives");
  ASSERT_EQ(r.series.size(), 9u * 2 * 3);  // ops x dtypes x sizes
  for (const report::Series& s : r.series) {
    EXPECT_EQ(s.samples.size(), 4u) << s.group << " " << s.row;
    EXPECT_EQ(s.sampleOf, "op");
    EXPECT_EQ(s.workUnit, "bytes");
  }
  EXPECT_EQ(r.series[0].group, "allreduce float32");
  EXPECT_EQ(r.series[0].row, "1024");
  EXPECT_NE(r.resultsJson.find("\"busbwFactor\""), std::string::npos);

  std::ifstream in(summary);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("\"headline\":\"allreduce float32 65536\""), std::string::npos)
      << text.str();

  // trainer0 (rank 1) recorded every measured op of every case.
  const std::string metrics = testing::scrape(testing::metricsPort(cluster.output(1)));
  EXPECT_NE(metrics.find("distbench_collective_seconds_count{benchmark=\"coll-test\",rank=\"1\","
                         "role=\"trainer\",bytes=\"1024\",dtype=\"float32\",op=\"allreduce\"} 4"),
            std::string::npos)
      << metrics;
}

}  // namespace
}  // namespace distbench::worker
