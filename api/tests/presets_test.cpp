#include "distbench/api/presets.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>

#include "test_util.h"

namespace distbench::api {
namespace {

TEST(PresetsTest, NamesAreListed) {
  EXPECT_THAT(presetNames(), ::testing::ElementsAre("default", "tutorial", "ddp", "ddp-cpu",
                                                    "collectives", "fabric"));
}

TEST(PresetsTest, DefaultIsTheStructDefaults) {
  DistBenchmark expected;
  expected.metadata.name = "default";
  const DistBenchmark b = preset("default");
  EXPECT_EQ(b, expected);
  EXPECT_EQ(b.spec.topology.trainers, 8);
  EXPECT_EQ(b.spec.topology.parameterServers, 8);
}

TEST(PresetsTest, TutorialIsTheDdpRpcTutorial) {
  DistBenchmark expected;
  expected.metadata.name = "tutorial";
  expected.spec.topology = {2, 1};
  expected.spec.benchmark.hybridDDPRPC.numEmbeddings = 100;
  expected.spec.benchmark.hybridDDPRPC.embeddingDim = 16;
  expected.spec.benchmark.hybridDDPRPC.denseLayers = {"8"};
  EXPECT_EQ(preset("tutorial"), expected);
}

TEST(PresetsTest, UnknownNameListsTheKnownOnes) {
  try {
    preset("x");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(
        e.what(),
        "unknown preset 'x'; known presets: default, tutorial, ddp, ddp-cpu, collectives, fabric");
  }
}

TEST(PresetsTest, DdpIsTheSeedSweep) {
  const DistBenchmark b = preset("ddp");
  EXPECT_EQ(b.spec.benchmark.kind, BenchmarkKind::DDP);
  EXPECT_EQ(b.spec.topology.trainers, 8);
  EXPECT_EQ(b.spec.topology.parameterServers, 0);
  EXPECT_EQ(b.spec.benchmark.ddp, DDPSpec());
  EXPECT_EQ(b.spec.benchmark.ddp.models,
            (std::vector<std::string>{"resnet50", "resnet101", "resnext50_32x4d",
                                      "resnext101_32x8d"}));
  EXPECT_EQ(b.spec.benchmark.ddp.batchSize, 32);
}

TEST(PresetsTest, EveryPresetIsValidAndRoundTrips) {
  for (const std::string& name : presetNames()) {
    const DistBenchmark b = preset(name);
    EXPECT_TRUE(validate(b).empty()) << name;
    EXPECT_EQ(parseDistBenchmark(toYaml(b)), b) << name;
    EXPECT_EQ(parseDistBenchmark(toJson(b)), b) << name;
  }
}

}  // namespace
}  // namespace distbench::api
