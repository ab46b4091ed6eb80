// A tiny HybridDDPRPC run's bytes and parameter-server service times, as
// real worker processes report them (docs/report-schema.md#hybridddprpc).
// The expected bytes come from the protocol's message sizes as the schema
// documents them, not from the code that sends them.
#include <cpprest/json.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "distbench/api/presets.h"
#include "distbench/report/report_json.h"
#include "support/cluster_expectations.h"
#include "support/local_cluster.h"

namespace distbench::worker {
namespace {

using testing::LocalCluster;
using testing::runToCompletion;
using web::json::value;

TEST(HybridTraffic, BytesPerStepFollowTheMessageSizes) {
  constexpr int kTrainers = 2, kServers = 2;
  api::DistBenchmark b = api::preset("default");
  b.metadata.name = "hybrid-traffic-test";
  b.spec.topology.trainers = kTrainers;
  b.spec.topology.parameterServers = kServers;
  auto& h = b.spec.benchmark.hybridDDPRPC;
  h.numEmbeddings = 50;
  h.embeddingDim = 8;
  h.maxBagIndices = 20;
  h.denseLayers = {"32", "ReLU", "16", "4"};
  h.epochs = 3;
  h.warmupEpochs = 1;
  h.batchesPerEpoch = 4;
  b.spec.runtime.peerTimeoutSeconds = 60;
  LocalCluster cluster(b);
  runToCompletion(cluster);

  // Every PS message is one buffer: a 64-byte header and room for the
  // largest payload. Request: 2 x maxBagIndices int64 (a lookup) or
  // maxBagIndices x dim floats (a gradient push); reply: the pooled rows.
  const int64_t request = 64 + std::max<int64_t>(16 * h.maxBagIndices,
                                                 4 * h.maxBagIndices * h.embeddingDim);
  const int64_t reply = 64 + 4 * h.maxBagIndices * h.embeddingDim;
  ASSERT_EQ(request, 64 + 640);  // the gradient push is the larger here
  // A trainer step, per server: lookup, push and step out; lookup and step
  // replies back.
  const int64_t trainerSent = kServers * 3 * request;
  const int64_t trainerReceived = kServers * 2 * reply;
  // The dense stack on P x dim inputs: 16 -> 32 -> 16 -> 4, weights and biases.
  const int64_t denseParameters =
      (kServers * h.embeddingDim * 32 + 32) + (32 * 16 + 16) + (16 * 4 + 4);

  const report::Report r = report::loadReportFile(cluster.reportPath());
  const value results = value::parse(r.resultsJson);
  const value& trainers = results.at("trainers");
  ASSERT_EQ(trainers.size(), static_cast<size_t>(kTrainers));
  for (int t = 0; t < kTrainers; ++t) {
    const value& trainer = trainers.at(t);
    EXPECT_EQ(trainer.at("bytesPerStep").at("sent").as_number().to_int64(), trainerSent);
    EXPECT_EQ(trainer.at("bytesPerStep").at("received").as_number().to_int64(),
              trainerReceived);
    EXPECT_EQ(trainer.at("denseGradientBytes").as_number().to_int64(), 4 * denseParameters);
  }

  const value& servers = results.at("parameterServers");
  ASSERT_EQ(servers.size(), static_cast<size_t>(kServers));
  const int measuredRequests = kTrainers * h.epochs * h.batchesPerEpoch;  // warm-up excluded
  for (int p = 0; p < kServers; ++p) {
    const value& ps = servers.at(p);
    EXPECT_EQ(ps.at("name").as_string(), "PS" + std::to_string(p));
    EXPECT_EQ(ps.at("rank").as_integer(), 1 + p);  // the master is rank 0, servers next
    for (const char* op : {"lookup", "pushGrad", "step"}) {
      const value& s = ps.at("service").at(op);
      EXPECT_EQ(s.at("count").as_integer(), measuredRequests) << op;
      EXPECT_GE(s.at("min").as_double(), 0) << op;
      EXPECT_GE(s.at("max").as_double(), s.at("p50").as_double()) << op;
    }
    // Per step: every trainer's three requests in, two replies out.
    EXPECT_EQ(ps.at("bytesPerStep").at("received").as_number().to_int64(),
              kTrainers * 3 * request);
    EXPECT_EQ(ps.at("bytesPerStep").at("sent").as_number().to_int64(), kTrainers * 2 * reply);
  }
}

}  // namespace
}  // namespace distbench::worker
