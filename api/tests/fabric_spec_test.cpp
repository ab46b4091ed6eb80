// The Fabric kind's section: its fields read and written, its defaults,
// the validation that names each field, and what it costs a rank.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "distbench/api/presets.h"
#include "distbench/api/resource_estimate.h"
#include "distbench/api/spec_limits.h"
#include "test_util.h"

namespace distbench::api {
namespace {

using test::document;
using test::parseErrors;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const std::string kFabric = document(
    "spec:\n"
    "  topology:\n"
    "    trainers: 3\n"
    "  benchmark:\n"
    "    kind: Fabric\n"
    "    fabric:\n"
    "      messageBytes: [8, 65536]\n"
    "      warmupSamples: 0\n"
    "      samplesPerPair: 3\n"
    "      computeProbeSize: 64\n"
    "      computeProbeSamples: 4\n"
    "      allreduceBytes: 1024\n"
    "      allreduceIterations: 2\n"
    "      thresholdPercent: 12.5\n"
    "      allPairsUpTo: 2\n"
    "      nodes: [node-a, node-b, node-c]\n"
    "      onePerNode: false\n");

TEST(FabricSpecTest, SectionParsesAndRoundTrips) {
  const DistBenchmark b = parseDistBenchmark(kFabric);
  const FabricSpec& f = b.spec.benchmark.fabric;
  EXPECT_EQ(b.spec.benchmark.kind, BenchmarkKind::Fabric);
  EXPECT_EQ(b.spec.topology.parameterServers, 0);  // the Fabric default
  EXPECT_EQ(f.messageBytes, (std::vector<int64_t>{8, 65536}));
  EXPECT_EQ(f.warmupSamples, 0);
  EXPECT_EQ(f.samplesPerPair, 3);
  EXPECT_EQ(f.computeProbeSize, 64);
  EXPECT_EQ(f.computeProbeSamples, 4);
  EXPECT_EQ(f.allreduceBytes, 1024);
  EXPECT_EQ(f.allreduceIterations, 2);
  EXPECT_DOUBLE_EQ(f.thresholdPercent, 12.5);
  EXPECT_EQ(f.allPairsUpTo, 2);
  EXPECT_EQ(f.nodes, (std::vector<std::string>{"node-a", "node-b", "node-c"}));
  EXPECT_FALSE(f.onePerNode);
  EXPECT_EQ(parseDistBenchmark(toYaml(b)), b);
  EXPECT_EQ(parseDistBenchmark(toJson(b)), b);
}

TEST(FabricSpecTest, DefaultsAreWrittenAndNodesOnlyWhenGiven) {
  const DistBenchmark b = parseDistBenchmark(
      document("spec:\n  topology:\n    trainers: 4\n  benchmark:\n    kind: Fabric\n"));
  const FabricSpec& f = b.spec.benchmark.fabric;
  EXPECT_EQ(f, FabricSpec());
  EXPECT_EQ(f.messageBytes, (std::vector<int64_t>{4096, 4194304}));
  EXPECT_EQ(f.samplesPerPair, 8);
  EXPECT_TRUE(f.onePerNode);
  const std::string yaml = toYaml(b);
  EXPECT_THAT(yaml, HasSubstr("fabric:"));
  EXPECT_THAT(yaml, HasSubstr("onePerNode: true"));
  EXPECT_EQ(yaml.find("nodes"), std::string::npos) << yaml;
  EXPECT_EQ(parseDistBenchmark(yaml), b);
}

TEST(FabricSpecTest, ValidationNamesFields) {
  EXPECT_THAT(
      parseErrors(document("spec:\n  topology:\n    trainers: 1\n    parameterServers: 1\n"
                           "  benchmark:\n    kind: Fabric\n    fabric:\n"
                           "      messageBytes: [0, 4096, 4096, 4294967297]\n"
                           "      warmupSamples: -1\n      samplesPerPair: 0\n"
                           "      computeProbeSize: 16385\n"
                           "      computeProbeSamples: 0\n      allreduceBytes: 0\n"
                           "      allreduceIterations: 0\n      thresholdPercent: 100\n"
                           "      allPairsUpTo: 1\n")),
      ElementsAre("spec.topology.parameterServers: must be 0 for kind Fabric: only "
                  "HybridDDPRPC has parameter servers",
                  "spec.topology.trainers: must be ≥ 2",
                  "spec.benchmark.fabric.messageBytes[0]: must be in 1..4294967296",
                  "spec.benchmark.fabric.messageBytes[3]: must be in 1..4294967296",
                  "spec.benchmark.fabric.messageBytes[2]: duplicate entry",
                  "spec.benchmark.fabric.warmupSamples: must be ≥ 0",
                  "spec.benchmark.fabric.samplesPerPair: must be ≥ 1",
                  "spec.benchmark.fabric.computeProbeSize: must be in 0..16384",
                  "spec.benchmark.fabric.computeProbeSamples: must be ≥ 1",
                  "spec.benchmark.fabric.allreduceBytes: must be in 1..4294967296",
                  "spec.benchmark.fabric.allreduceIterations: must be ≥ 1",
                  "spec.benchmark.fabric.thresholdPercent: must be a percentage in (0, 100)",
                  "spec.benchmark.fabric.allPairsUpTo: must be ≥ 2"));
  EXPECT_THAT(
      parseErrors(document("spec:\n  benchmark:\n    kind: Fabric\n    fabric:\n"
                           "      messageBytes: []\n      thresholdPercent: 0\n")),
      ElementsAre("spec.benchmark.fabric.messageBytes: must list at least one size",
                  "spec.benchmark.fabric.thresholdPercent: must be a percentage in (0, 100)"));
}

TEST(FabricSpecTest, NodesAreOnePerTrainerDistinctNodeNames) {
  EXPECT_THAT(parseErrors(document("spec:\n  topology:\n    trainers: 3\n  benchmark:\n"
                                   "    kind: Fabric\n    fabric:\n      nodes: [a, b]\n")),
              ElementsAre("spec.benchmark.fabric.nodes: lists 2 nodes; must list one per trainer "
                          "(spec.topology.trainers is 3) or none"));
  EXPECT_THAT(parseErrors(document("spec:\n  topology:\n    trainers: 3\n  benchmark:\n"
                                   "    kind: Fabric\n    fabric:\n"
                                   "      nodes: [node-a, Node_B, node-a]\n")),
              ElementsAre("spec.benchmark.fabric.nodes[1]: must be a Kubernetes node name (a "
                          "DNS-1123 subdomain), got \"Node_B\"",
                          "spec.benchmark.fabric.nodes[2]: repeats node \"node-a\"; a node "
                          "holds several ranks only with spec.benchmark.fabric.onePerNode: false"));
}

TEST(FabricSpecTest, ANodeHoldsSeveralRanksOnlyWithoutOnePerNode) {
  EXPECT_THAT(parseErrors(document("spec:\n  topology:\n    trainers: 3\n  benchmark:\n"
                                   "    kind: Fabric\n    fabric:\n"
                                   "      nodes: [node-a, node-b, node-a]\n"
                                   "      onePerNode: false\n")),
              IsEmpty());
}

TEST(FabricSpecTest, WrongTypesNameTheField) {
  EXPECT_THAT(parseErrors(document("spec:\n  benchmark:\n    kind: Fabric\n    fabric:\n"
                                   "      messageBytes: [4096, big]\n      onePerNode: yes\n"
                                   "      nodes: node-a\n")),
              ElementsAre("spec.benchmark.fabric.messageBytes[1]: must be an integer",
                          "spec.benchmark.fabric.onePerNode: must be true or false",
                          "spec.benchmark.fabric.nodes: must be a list"));
  EXPECT_THAT(parseErrors(document("spec:\n  benchmark:\n    fabric: {}\n")),
              ElementsAre("spec.benchmark.fabric: only allowed when spec.benchmark.kind is Fabric "
                          "(kind is HybridDDPRPC)"));
}

TEST(FabricSpecTest, PresetIsValidSmallAndTheExample) {
  const DistBenchmark b = preset("fabric");
  EXPECT_EQ(b.spec.benchmark.kind, BenchmarkKind::Fabric);
  EXPECT_EQ(b.spec.topology.trainers, 6);
  EXPECT_EQ(b.spec.topology.parameterServers, 0);
  EXPECT_EQ(parseDistBenchmark(toYaml(b)), b);
  EXPECT_EQ(loadDistBenchmarkFile(std::string(DISTBENCH_EXAMPLES_DIR) + "/fabric.yaml"), b);
}

TEST(FabricSpecTest, ProbeSideFollowsTheDevice) {
  FabricSpec f;
  EXPECT_EQ(fabricProbeSide(f, Device::CPU), kFabricCpuProbeSize);
  EXPECT_EQ(fabricProbeSide(f, Device::CUDA), kFabricCudaProbeSize);
  f.computeProbeSize = 100;
  EXPECT_EQ(fabricProbeSide(f, Device::CUDA), 100);
}

TEST(FabricSpecTest, EstimatesCountPairsBuffersAndSamples) {
  DistBenchmark b = parseDistBenchmark(kFabric);
  // 3 nodes: 3 pairs x 2 sizes x 2 directions x 3 samples, and per node 4
  // probe samples and 2 allreduce iterations.
  EXPECT_EQ(timingSamples(b.spec), 3 * 2 * 2 * 3 + 3 * (4 + 2));
  // A trainer: two buffers of the largest message, the allreduce buffer,
  // the probe's three 64 x 64 float32 matrices.
  EXPECT_EQ(rankMemoryBytes(b.spec, Role::Trainer),
            kRankBaseBytes + 2 * 65536 + 1024 + 3 * 64 * 64 * 4);
  // Past allPairsUpTo the planner measures a tenth of the pairs and a pass.
  FabricSpec f;
  f.allPairsUpTo = 16;
  EXPECT_EQ(fabricPairsPlanned(f, 16), 120);
  EXPECT_EQ(fabricPairsPlanned(f, 100), 4950 / 10 + 100);
  // The sample count is a derived limit, named on samplesPerPair.
  b.spec.topology.trainers = 4000;
  b.spec.benchmark.fabric.nodes.clear();
  b.spec.benchmark.fabric.allPairsUpTo = 4000;
  b.spec.benchmark.fabric.samplesPerPair = 100000;
  bool named = false;
  for (const FieldError& e : checkSpecLimits(b.spec))
    named |= e.field == "spec.benchmark.fabric.samplesPerPair";
  EXPECT_TRUE(named);
}

}  // namespace
}  // namespace distbench::api
