// Whole benchmarks on loopback: real distbench-worker processes, real Gloo.
#include <cpprest/json.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <fstream>
#include <sstream>

#include "distbench/api/presets.h"
#include "distbench/report/report_json.h"
#include "distbench/worker/hybrid/state_dump.h"
#include "hybrid/reference_training.h"
#include "support/cluster_expectations.h"
#include "support/local_cluster.h"

namespace distbench::worker {
namespace {

using testing::LocalCluster;
using testing::expectAllSucceeded;
using testing::runToCompletion;

api::DistBenchmark smallBenchmark(int trainers, int parameterServers) {
  api::DistBenchmark b = api::preset("default");
  b.metadata.name = "hybrid-test";
  b.spec.topology.trainers = trainers;
  b.spec.topology.parameterServers = parameterServers;
  auto& h = b.spec.benchmark.hybridDDPRPC;
  h.numEmbeddings = 50;
  h.embeddingDim = 8;
  h.denseLayers = {"32", "ReLU", "16", "4"};
  h.epochs = 3;
  h.warmupEpochs = 1;
  h.batchesPerEpoch = 3;
  b.spec.benchmark.seed = 7;
  b.spec.benchmark.bucketCapMB = 0.001;  // several buckets even for this small stack
  b.spec.runtime.rendezvousTimeoutSeconds = 60;
  b.spec.runtime.peerTimeoutSeconds = 60;
  return b;
}

std::vector<at::Tensor> load(const LocalCluster& cluster, const std::string& file) {
  return loadTensors(cluster.stateDir() + "/" + file);
}

void expectClose(const std::vector<at::Tensor>& actual, const std::vector<at::Tensor>& expected,
                 const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double diff = (actual[i] - expected[i]).abs().max().item<double>();
    EXPECT_LT(diff, 2e-5) << what << " tensor " << i;
  }
}

TEST(HybridTraining, DenseReplicasAreBitIdentical) {
  api::DistBenchmark b = smallBenchmark(3, 2);
  LocalCluster cluster(b);
  runToCompletion(cluster);
  const auto first = load(cluster, "trainer0_dense.pt");
  ASSERT_FALSE(first.empty());
  for (int t = 1; t < 3; ++t) {
    const auto other = load(cluster, "trainer" + std::to_string(t) + "_dense.pt");
    ASSERT_EQ(other.size(), first.size());
    for (size_t i = 0; i < first.size(); ++i) {
      EXPECT_TRUE(torch::equal(first[i], other[i])) << "trainer" << t << " parameter " << i;
    }
  }
}

struct ReferenceCase {
  int trainers, parameterServers;
  api::EmbeddingMode mode;
  api::ParameterServerMode psMode;
};

class MatchesReference : public ::testing::TestWithParam<ReferenceCase> {};

TEST_P(MatchesReference, TablesAndDenseWeights) {
  const ReferenceCase c = GetParam();
  api::DistBenchmark b = smallBenchmark(c.trainers, c.parameterServers);
  b.spec.benchmark.hybridDDPRPC.embeddingMode = c.mode;
  b.spec.benchmark.hybridDDPRPC.parameterServerMode = c.psMode;
  LocalCluster cluster(b);
  runToCompletion(cluster);

  const testing::ReferenceState expected = testing::trainReference(b);
  for (int p = 0; p < c.parameterServers; ++p) {
    const auto table = load(cluster, "ps" + std::to_string(p) + "_table.pt");
    expectClose(table, {expected.tables[p]}, "ps" + std::to_string(p) + " table");
  }
  for (int t = 0; t < c.trainers; ++t) {
    expectClose(load(cluster, "trainer" + std::to_string(t) + "_dense.pt"), expected.dense,
                "trainer" + std::to_string(t) + " dense");
  }
  // Guard against a vacuous pass: training moved the state ten times further
  // than the tolerance.
  api::DistBenchmark untrained = b;
  untrained.spec.benchmark.hybridDDPRPC.epochs = 0;
  untrained.spec.benchmark.hybridDDPRPC.warmupEpochs = 0;
  const testing::ReferenceState initial = testing::trainReference(untrained);
  EXPECT_GT((expected.tables[0] - initial.tables[0]).abs().max().item<double>(), 2e-4);
  EXPECT_GT((expected.dense[0] - initial.dense[0]).abs().max().item<double>(), 2e-4);
}

INSTANTIATE_TEST_SUITE_P(
    Topologies, MatchesReference,
    ::testing::Values(
        // Several trainers: Sync mode makes the interleaving deterministic.
        ReferenceCase{3, 2, api::EmbeddingMode::Sum, api::ParameterServerMode::Sync},
        ReferenceCase{2, 3, api::EmbeddingMode::Mean, api::ParameterServerMode::Sync},
        ReferenceCase{2, 1, api::EmbeddingMode::Max, api::ParameterServerMode::Sync},
        // One trainer: Async (the seed's mode) is deterministic too.
        ReferenceCase{1, 3, api::EmbeddingMode::Sum, api::ParameterServerMode::Async}),
    [](const auto& info) {
      const ReferenceCase& c = info.param;
      return std::to_string(c.trainers) + "T" + std::to_string(c.parameterServers) + "P_" +
             api::toString(c.mode) + "_" + api::toString(c.psMode);
    });

// Every trainer's results carry all six phases over the measured epochs,
// each taking time; and, being disjoint parts of a batch, their means add up
// to no more than the trainer's mean seconds per batch.
void expectPhases(const report::Report& r, const api::HybridDDPRPCSpec& spec) {
  const web::json::value results = web::json::value::parse(r.resultsJson);
  const auto& trainers = results.at("trainers").as_array();
  ASSERT_EQ(trainers.size(), static_cast<size_t>(r.trainers));
  for (const auto& t : trainers) {
    const std::string name = t.at("name").as_string();
    const auto& series = r.series.at(t.at("series").as_integer());
    ASSERT_EQ(series.row, name);
    ASSERT_TRUE(t.has_object_field("phases")) << name << ": " << r.resultsJson;
    const auto& phases = t.at("phases").as_object();
    EXPECT_EQ(phases.size(), 6u) << name;
    double sumOfMeans = 0;
    for (const char* phase :
         {"lookup", "forward", "backward", "push", "allreduceWait", "optimizerStep"}) {
      ASSERT_TRUE(t.at("phases").has_object_field(phase)) << name << " has no " << phase;
      const auto& summary = t.at("phases").at(phase);
      EXPECT_EQ(summary.at("count").as_integer(), spec.epochs) << name << " " << phase;
      EXPECT_GT(summary.at("p50").as_double(), 0) << name << " " << phase;
      EXPECT_LE(summary.at("min").as_double(), summary.at("max").as_double())
          << name << " " << phase;
      sumOfMeans += summary.at("mean").as_double();
    }
    double epochMean = 0;
    for (double s : series.samples) epochMean += s / static_cast<double>(series.samples.size());
    const double perBatch = epochMean / spec.batchesPerEpoch;
    EXPECT_GT(sumOfMeans, 0) << name;
    EXPECT_LE(sumOfMeans, perBatch * (1 + 1e-9) + 1e-9)
        << name << ": phases add up to more than a batch takes";
  }
}

TEST(HybridTraining, MasterPrintsTheTableAndWritesTheReport) {
  api::DistBenchmark b = smallBenchmark(2, 1);
  LocalCluster cluster(b);
  runToCompletion(cluster);
  const std::string& master = cluster.output(0);
  EXPECT_NE(master.find("PyTorch Distributed Benchmark (DDP and RPC)"), std::string::npos);
  EXPECT_NE(master.find("Trainer0:  p50:  "), std::string::npos) << master;
  EXPECT_NE(master.find("Trainer1:  p50:  "), std::string::npos) << master;
  EXPECT_NE(master.find("     All:  p50:  "), std::string::npos) << master;
  const report::Report r = report::loadReportFile(cluster.reportPath());
  EXPECT_EQ(r.schemaVersion, 2);
  EXPECT_EQ(r.kind, "HybridDDPRPC");
  EXPECT_EQ(r.seed, 7);
  EXPECT_EQ(r.parameterServers, 1);
  EXPECT_EQ(r.trainers, 2);
  EXPECT_FALSE(r.host.cpuModel.empty());
  EXPECT_EQ(r.versions.count("torch"), 1u);
  ASSERT_EQ(r.series.size(), 3u);
  EXPECT_EQ(r.series[0].row, "Trainer0");
  EXPECT_EQ(r.series[2].row, "All");
  EXPECT_EQ(r.series[0].sampleOf, "epoch");
  EXPECT_EQ(r.series[0].samples.size(), static_cast<size_t>(b.spec.benchmark.hybridDDPRPC.epochs));
  EXPECT_EQ(r.series[2].samples.size(), 2 * r.series[0].samples.size());
  EXPECT_GT(r.series[0].workPerSample, 0);
  EXPECT_DOUBLE_EQ(r.series[2].workPerSample, r.series[0].workPerSample + r.series[1].workPerSample);
  expectPhases(r, b.spec.benchmark.hybridDDPRPC);
}

// The peer timeout bounds each wait on a peer, not the run: a benchmark that
// runs several times longer than it must still finish.
TEST(HybridTraining, RunsLongerThanThePeerTimeout) {
  api::DistBenchmark b = smallBenchmark(2, 2);
  b.spec.runtime.peerTimeoutSeconds = 1;
  b.spec.benchmark.hybridDDPRPC.epochs = 300;
  LocalCluster cluster(b);
  const auto took = cluster.waitAll(std::chrono::seconds(120));
  EXPECT_GT(took, std::chrono::seconds(3)) << "too short to prove anything";
  expectAllSucceeded(cluster);
}

// An epoch longer than the peer timeout is no failure either: trainers send
// the master heartbeats within the epoch.
TEST(HybridTraining, EpochsLongerThanThePeerTimeout) {
  api::DistBenchmark b = smallBenchmark(2, 1);
  b.spec.runtime.peerTimeoutSeconds = 1;
  auto& h = b.spec.benchmark.hybridDDPRPC;
  h.warmupEpochs = 0;
  h.epochs = 1;
  h.batchesPerEpoch = 1500;
  LocalCluster cluster(b);
  const auto took = cluster.waitAll(std::chrono::seconds(120));
  EXPECT_GT(took, std::chrono::seconds(2)) << "too short to prove anything";
  expectAllSucceeded(cluster);
}

}  // namespace
}  // namespace distbench::worker
