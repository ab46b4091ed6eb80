// A tiny HybridDDPRPC run's bytes and parameter-server service times, as
// real worker processes report them (docs/report-schema.md#hybridddprpc).
// The expected bytes come from the protocol's frames as the schema documents
// them and the batches the trainers drew, not from the code that sends them.
#include <cpprest/json.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "distbench/api/presets.h"
#include "distbench/report/report_json.h"
#include "distbench/worker/hybrid/batch_generator.h"
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

  // Every PS message is one frame: a 4-byte length, a 64-byte header and
  // the payload its header announces (docs/report-schema.md). A trainer
  // step, per server: a lookup (n indices and b offsets, int64), a push
  // (b x dim floats) and a step out; the lookup's rows (b x dim floats)
  // and the step's acknowledgement back. n and b are the batch's: replayed
  // here from the trainer's generator over the measured steps.
  const int64_t frame = 4 + 64;
  const int64_t measuredSteps = int64_t{h.epochs} * h.batchesPerEpoch;
  std::vector<double> trainerSent(kTrainers), trainerReceived(kTrainers);
  double serverReceived = 0, serverSent = 0;
  for (int t = 0; t < kTrainers; ++t) {
    BatchGenerator batches(h, b.spec.benchmark.seed, t, 4);
    for (int64_t step = 0; step < int64_t{h.epochs + h.warmupEpochs} * h.batchesPerEpoch; ++step) {
      const Batch batch = batches.next();
      if (step < int64_t{h.warmupEpochs} * h.batchesPerEpoch) continue;
      const int64_t n = batch.indices.size(0), bags = batch.offsets.size(0);
      const int64_t out = (frame + 8 * (n + bags)) + (frame + 4 * bags * h.embeddingDim) + frame;
      const int64_t in = (frame + 4 * bags * h.embeddingDim) + frame;
      trainerSent[t] += static_cast<double>(kServers * out) / measuredSteps;
      trainerReceived[t] += static_cast<double>(kServers * in) / measuredSteps;
      serverReceived += static_cast<double>(out) / measuredSteps;
      serverSent += static_cast<double>(in) / measuredSteps;
    }
  }
  // The dense stack on P x dim inputs: 16 -> 32 -> 16 -> 4, weights and biases.
  const int64_t denseParameters =
      (kServers * h.embeddingDim * 32 + 32) + (32 * 16 + 16) + (16 * 4 + 4);

  const report::Report r = report::loadReportFile(cluster.reportPath());
  const value results = value::parse(r.resultsJson);
  const value& trainers = results.at("trainers");
  ASSERT_EQ(trainers.size(), static_cast<size_t>(kTrainers));
  for (int t = 0; t < kTrainers; ++t) {
    const value& trainer = trainers.at(t);
    EXPECT_NEAR(trainer.at("bytesPerStep").at("sent").as_double(), trainerSent[t], 1e-6);
    EXPECT_NEAR(trainer.at("bytesPerStep").at("received").as_double(), trainerReceived[t], 1e-6);
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
    EXPECT_NEAR(ps.at("bytesPerStep").at("received").as_double(), serverReceived, 1e-6);
    EXPECT_NEAR(ps.at("bytesPerStep").at("sent").as_double(), serverSent, 1e-6);
  }
}

}  // namespace
}  // namespace distbench::worker
