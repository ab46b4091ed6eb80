// A real run says why it is as fast as it is: the master prints the
// attribution under its result table, writes it into the report, and puts
// its one line into the termination message as `bottleneck`.
#include <cpprest/json.h>
#include <gtest/gtest.h>

#include <string>

#include "distbench/api/presets.h"
#include "distbench/api/worker_env.h"
#include "distbench/process/binary_runner.h"
#include "distbench/report/attribution.h"
#include "distbench/report/report_json.h"
#include "support/cluster_expectations.h"
#include "support/local_cluster.h"
#include "support/tiny_ddp.h"

namespace distbench::worker {
namespace {

using testing::LocalCluster;
using testing::runToCompletion;
using web::json::value;

api::DistBenchmark tinyDdp() {
  api::DistBenchmark b = testing::tinyDdpSweep("attribution", 2);
  b.spec.runtime.peerTimeoutSeconds = 30;
  return b;
}

TEST(AttributionRun, DdpMasterPrintsWritesAndSummarizesTheAttribution) {
  const std::string terminationLog = ::testing::TempDir() + "attribution-termination-log";
  LocalCluster cluster(tinyDdp(), {}, 0, {{api::kEnvTerminationLog, terminationLog}});
  runToCompletion(cluster, std::chrono::seconds(180));

  const report::Report r = report::loadReportFile(cluster.reportPath());
  ASSERT_FALSE(r.attributionJson.empty());
  const value attribution = value::parse(r.attributionJson);
  // The same attribution the report's own figures give.
  const report::Attribution again = report::attribute(r);
  EXPECT_EQ(attribution.at("summary").as_string(), again.summary);
  ASSERT_EQ(attribution.at("rows").size(), 3u);  // no ddp, 1M/1R, 1M/2R
  for (const value& row : attribution.at("rows").as_array()) {
    const std::string bound = row.at("bound").as_string();
    EXPECT_TRUE(bound == "compute" || bound == "communication" || bound == "mixed") << bound;
    EXPECT_GT(row.at("stepSeconds").as_double(), 0);
  }

  // Under the table, after the last row, ending with the summary.
  const std::string& out = cluster.stdoutOf(0);
  const size_t lastRow = out.find("   2 ranks --    1M/2R:  p50:");
  const size_t why = out.find("Why (attribution");
  ASSERT_NE(lastRow, std::string::npos) << out;
  ASSERT_NE(why, std::string::npos) << out;
  EXPECT_LT(lastRow, why);
  EXPECT_NE(out.find("Bottleneck: " + again.summary + "\n", why), std::string::npos) << out;

  const value summary = value::parse(process::slurp(terminationLog));
  EXPECT_EQ(summary.at("bottleneck").as_string(), again.summary);
}

}  // namespace
}  // namespace distbench::worker
