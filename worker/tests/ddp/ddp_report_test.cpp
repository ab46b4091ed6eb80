// A tiny DDP run's report as real worker processes write it: each rank's
// phases (perRank) and the row's gradient buckets, which the trainers hand
// the master through the store (docs/report-schema.md#ddp).
#include <cpprest/json.h>
#include <gtest/gtest.h>

#include "distbench/api/presets.h"
#include "distbench/report/report_json.h"
#include "support/cluster_expectations.h"
#include "support/local_cluster.h"
#include "support/tiny_ddp.h"

namespace distbench::worker {
namespace {

using testing::LocalCluster;
using testing::runToCompletion;
using web::json::value;

TEST(DdpReport, RowsCarryPerRankPhasesAndBuckets) {
  api::DistBenchmark b = testing::tinyDdpSweep("ddp-report-test", 2);
  const api::DDPSpec& ddp = b.spec.benchmark.ddp;
  b.spec.benchmark.ddp.iterations = 4;
  b.spec.benchmark.bucketCapMB = 0.01;  // several buckets even for this model
  b.spec.runtime.peerTimeoutSeconds = 30;
  LocalCluster cluster(b);
  runToCompletion(cluster);

  const report::Report r = report::loadReportFile(cluster.reportPath());
  const value model = value::parse(r.resultsJson).at("models").at(0);
  const int64_t parameters = model.at("parameters").as_number().to_int64();
  ASSERT_GT(parameters, 0);
  const value& rows = model.at("rows");
  ASSERT_EQ(rows.size(), 3u);  // no ddp, 1M/1R, 1M/2R
  for (size_t i = 0; i < rows.size(); ++i) {
    const value& row = rows.at(i);
    const std::string label = row.at("row").as_string();
    const int ranks = row.at("ranks").as_integer();
    const value& perRank = row.at("perRank");
    ASSERT_EQ(perRank.size(), static_cast<size_t>(ranks)) << label;
    for (int k = 0; k < ranks; ++k) {
      // Trainers are ranks 1.. in a DDP run (the master, rank 0, runs no rows).
      EXPECT_EQ(perRank.at(k).at("rank").as_integer(), k + 1) << label;
      for (const char* phase :
           {"iteration", "forward", "backward", "allreduceWait", "optimizerStep"}) {
        const value& s = perRank.at(k).at("phases").at(phase);
        EXPECT_EQ(s.at("count").as_integer(), ddp.iterations) << label << " " << phase;
        EXPECT_GE(s.at("min").as_double(), 0) << label << " " << phase;
      }
      const value& iteration = perRank.at(k).at("phases").at("iteration");
      EXPECT_GT(iteration.at("p50").as_double(), 0) << label;
    }
    if (!row.at("ddp").as_bool()) {
      EXPECT_FALSE(row.has_field("buckets")) << label;
      continue;
    }
    const value& buckets = row.at("buckets");
    ASSERT_GE(buckets.size(), 2u) << label;
    int64_t bytes = 0, params = 0;
    for (size_t k = 0; k < buckets.size(); ++k) {
      const value& bucket = buckets.at(k);
      EXPECT_EQ(bucket.at("index").as_integer(), static_cast<int>(k));
      bytes += bucket.at("bytes").as_number().to_int64();
      params += bucket.at("parameters").as_integer();
      const double first = bucket.at("firstGradient").as_double();
      const double launched = bucket.at("launched").as_double();
      const double completed = bucket.at("completed").as_double();
      EXPECT_GE(first, 0) << label << " bucket " << k;
      EXPECT_GE(launched, first) << label << " bucket " << k;
      EXPECT_GE(completed, launched) << label << " bucket " << k;
    }
    // float32 gradients: every parameter's 4 bytes, each in one bucket.
    EXPECT_EQ(bytes, 4 * parameters) << label;
    EXPECT_EQ(row.at("gradientBytes").as_number().to_int64(), 4 * parameters) << label;
    EXPECT_GT(params, 0);
  }
}

}  // namespace
}  // namespace distbench::worker
