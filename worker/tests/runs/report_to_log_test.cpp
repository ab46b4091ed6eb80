// DISTBENCH_REPORT_TO_LOG as the operator uses it: the master of a real
// gang prints its whole report to stdout, framed, and reportFromLog gets it
// back from what a container log of stdout would hold.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "distbench/api/presets.h"
#include "distbench/api/worker_env.h"
#include "distbench/process/binary_runner.h"
#include "distbench/report/report_json.h"
#include "distbench/report/report_log.h"
#include "support/cluster_expectations.h"
#include "support/local_cluster.h"

namespace distbench::worker {
namespace {

using testing::LocalCluster;
using testing::runToCompletion;

api::DistBenchmark smallCollectives() {
  api::DistBenchmark b = api::preset("collectives");
  b.metadata.name = "report-to-log";
  b.spec.topology.trainers = 2;
  b.spec.benchmark.collectives.dtypes = {api::DType::Float32};
  b.spec.benchmark.collectives.minBytes = 1024;
  b.spec.benchmark.collectives.maxBytes = 8192;
  b.spec.benchmark.collectives.stepFactor = 8;  // 1 KiB, 8 KiB
  b.spec.benchmark.collectives.warmupIterations = 1;
  b.spec.benchmark.collectives.iterations = 3;
  b.spec.runtime.rendezvousTimeoutSeconds = 60;
  b.spec.runtime.peerTimeoutSeconds = 60;
  return b;
}

// The test process's own environment reaches every rank: none of it may
// turn the feature on where a test means it off.
class ReportToLog : public ::testing::Test {
 protected:
  void SetUp() override { ::unsetenv(api::kEnvReportToLog); }
};

TEST_F(ReportToLog, MasterPrintsTheReportItWritesToItsLog) {
  LocalCluster cluster(smallCollectives(), {}, 0, {{api::kEnvReportToLog, "1"}});
  runToCompletion(cluster);

  const std::string& out = cluster.stdoutOf(0);
  EXPECT_NE(out.find("Benchmark: allreduce float32 on 2 ranks"), std::string::npos)
      << "the frame comes with the master's other output\n"
      << out;
  const std::optional<std::string> carried = report::reportFromLog(out);
  ASSERT_TRUE(carried.has_value()) << out;
  const std::string file = process::slurp(cluster.reportPath());
  EXPECT_EQ(*carried + "\n", file) << "the log carries what --report wrote, byte for byte";
  const report::Report r = report::parseReport(*carried);
  EXPECT_EQ(r.kind, "Collectives");
  EXPECT_EQ(r.series.size(), 9u * 2);  // ops x sizes
  // The report keeps what the master printed before it, as printed: the
  // table a cluster run shows once its pod is gone.
  const size_t frame = out.find(std::string(report::kReportLogPrefix) + " begin ");
  ASSERT_NE(frame, std::string::npos);
  EXPECT_EQ(r.masterOutput, out.substr(0, frame));
  EXPECT_NE(r.masterOutput.find("Bottleneck: "), std::string::npos) << r.masterOutput;

  // Said on stderr, in the frame's own numbers.
  const size_t begin = out.find(std::string(report::kReportLogPrefix) + " begin ");
  ASSERT_NE(begin, std::string::npos);
  const std::string lines = out.substr(out.find(" lines=", begin) + 7);
  const std::string said = "master: report printed to the log for the operator (" +
                           std::to_string(carried->size()) + " bytes, " +
                           lines.substr(0, lines.find('\n')) + " lines)";
  EXPECT_NE(cluster.output(0).find(said), std::string::npos) << said << "\n" << cluster.output(0);
  EXPECT_GT(std::stoi(lines), 1) << "a report of several lines";
  for (int rank = 1; rank < cluster.worldSize(); ++rank) {
    EXPECT_EQ(cluster.output(rank).find(report::kReportLogPrefix), std::string::npos)
        << "only the master prints it; rank " << rank << "\n"
        << cluster.output(rank);
  }
}

TEST_F(ReportToLog, WithoutReportFileAsInAPodTheLogStillCarriesIt) {
  LocalCluster cluster(smallCollectives(), {}, 0, {{api::kEnvReportToLog, "yes"}},
                       /*reportFile=*/false);
  runToCompletion(cluster);
  EXPECT_FALSE(std::filesystem::exists(cluster.reportPath()));
  const std::optional<std::string> carried = report::reportFromLog(cluster.stdoutOf(0));
  ASSERT_TRUE(carried.has_value()) << cluster.output(0);
  EXPECT_EQ(report::parseReport(*carried).kind, "Collectives");
  EXPECT_EQ(cluster.output(0).find("master: report written"), std::string::npos);
}

TEST_F(ReportToLog, UnsetOrEmptyPrintsNothing) {
  for (const char* value : {static_cast<const char*>(nullptr), ""}) {
    process::ChildProcess::Env env;
    if (value) env.emplace_back(api::kEnvReportToLog, value);
    LocalCluster cluster(smallCollectives(), {}, 0, env);
    runToCompletion(cluster);
    EXPECT_TRUE(std::filesystem::exists(cluster.reportPath()));
    for (int rank = 0; rank < cluster.worldSize(); ++rank) {
      EXPECT_EQ(cluster.output(rank).find(report::kReportLogPrefix), std::string::npos)
          << (value ? "empty" : "unset") << ", rank " << rank << "\n"
          << cluster.output(rank);
    }
    EXPECT_EQ(report::reportFromLog(cluster.stdoutOf(0)), std::nullopt);
  }
}

}  // namespace
}  // namespace distbench::worker
