#include "distbench/api/renderer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "distbench/api/presets.h"
#include "distbench/api/rank_layout.h"
#include "test_util.h"

namespace distbench::api {
namespace {

using ::testing::ElementsAre;

std::vector<std::string> envNames(const RankProcess& p) {
  std::vector<std::string> names;
  for (const EnvVar& e : p.env) names.push_back(e.name);
  return names;
}

std::string envValue(const RankProcess& p, const std::string& name) {
  for (const EnvVar& e : p.env) {
    if (e.name == name) return e.value;
  }
  ADD_FAILURE() << p.name << " has no " << name;
  return "";
}

// minimalBenchmark(): 3 trainers, 2 parameter servers.
class RendererTest : public ::testing::Test {
 protected:
  RenderedBenchmark rendered_ = render(test::minimalBenchmark());
};

TEST_F(RendererTest, RankLayout) {
  ASSERT_EQ(rendered_.ranks.size(), 6u);
  struct Expected {
    const char* name;
    const char* label;
    Role role;
    int roleIndex;
  };
  const Expected expected[] = {
      {"small-master-0", "master", Role::Master, 0},
      {"small-ps-0", "ps0", Role::ParameterServer, 0},
      {"small-ps-1", "ps1", Role::ParameterServer, 1},
      {"small-trainer-0", "trainer0", Role::Trainer, 0},
      {"small-trainer-1", "trainer1", Role::Trainer, 1},
      {"small-trainer-2", "trainer2", Role::Trainer, 2},
  };
  for (int rank = 0; rank < 6; ++rank) {
    SCOPED_TRACE(rank);
    const RankProcess& p = rendered_.ranks[rank];
    EXPECT_EQ(p.rank, rank);
    EXPECT_EQ(p.name, expected[rank].name);
    EXPECT_EQ(p.rankLabel, expected[rank].label);
    EXPECT_EQ(p.role, expected[rank].role);
    EXPECT_EQ(p.roleIndex, expected[rank].roleIndex);
  }
}

TEST_F(RendererTest, EnvironmentNamesInOrder) {
  const std::vector<std::string> everyRank = {"RANK",
                                              "WORLD_SIZE",
                                              "MASTER_ADDR",
                                              "MASTER_PORT",
                                              "DISTBENCH_ROLE",
                                              "DISTBENCH_ROLE_INDEX",
                                              "DISTBENCH_NUM_PS",
                                              "DISTBENCH_NUM_TRAINERS",
                                              "DISTBENCH_CONFIG",
                                              "DISTBENCH_BENCHMARK",
                                              "DISTBENCH_METRICS_PORT",
                                              "DISTBENCH_METRICS_LINGER_SECONDS"};
  std::vector<std::string> trainers = everyRank;
  trainers.push_back("LOCAL_RANK");
  trainers.push_back("LOCAL_WORLD_SIZE");
  for (const RankProcess& p : rendered_.ranks) {
    SCOPED_TRACE(p.name);
    EXPECT_EQ(envNames(p), p.role == Role::Trainer ? trainers : everyRank);
  }
}

// Trainers are the ranks that use GPUs. In pods each is alone on its node;
// on one host they share it, numbered as torchrun numbers local ranks.
TEST(RenderLocalRankTest, OnePerPodUnlessRanksShareTheHost) {
  DistBenchmark b = test::minimalBenchmark();  // 3 trainers after 2 parameter servers
  for (bool cuda : {false, true}) {
    SCOPED_TRACE(cuda ? "cuda" : "cpu");
    if (cuda) b.spec.runtime.device = Device::CUDA;
    for (const RankProcess& p : render(b).ranks) {
      if (p.role != Role::Trainer) continue;
      SCOPED_TRACE(p.name);
      EXPECT_EQ(envValue(p, kEnvLocalRank), "0");
      EXPECT_EQ(envValue(p, kEnvLocalWorldSize), "1");
    }
    RenderOptions shared;
    shared.ranksShareHost = true;
    std::vector<std::string> localRanks;
    for (const RankProcess& p : render(b, shared).ranks) {
      if (p.role != Role::Trainer) continue;
      localRanks.push_back(envValue(p, kEnvLocalRank));
      EXPECT_EQ(envValue(p, kEnvLocalWorldSize), "3") << p.name;
    }
    EXPECT_THAT(localRanks, ElementsAre("0", "1", "2"));
  }
}

TEST(RenderLocalRankTest, EveryKindsTrainersAndOnlyThem) {
  for (const char* name : {"ddp-cpu", "collectives", "tutorial"}) {
    SCOPED_TRACE(name);
    DistBenchmark b = preset(name);
    RenderOptions shared;
    shared.ranksShareHost = true;
    int trainers = 0;
    for (const RankProcess& p : render(b, shared).ranks) {
      const std::vector<std::string> names = envNames(p);
      const bool has = std::find(names.begin(), names.end(), "LOCAL_RANK") != names.end();
      EXPECT_EQ(has, p.role == Role::Trainer) << p.name;
      if (p.role == Role::Trainer) {
        EXPECT_EQ(envValue(p, kEnvLocalRank), std::to_string(p.roleIndex));
        ++trainers;
      }
    }
    EXPECT_EQ(trainers, b.spec.topology.trainers);
  }
}

TEST(RenderGpuTest, ConfigWritesTheGpuDefaultOnlyForCuda) {
  DistBenchmark b = test::minimalBenchmark();
  EXPECT_FALSE(parseDistBenchmark(render(b).configYaml).spec.runtime.gpusPerRank);
  b.spec.runtime.device = Device::CUDA;
  EXPECT_EQ(parseDistBenchmark(render(b).configYaml).spec.runtime.gpusPerRank, 1);
  b.spec.runtime.gpusPerRank = 3;
  EXPECT_EQ(parseDistBenchmark(render(b).configYaml).spec.runtime.gpusPerRank, 3);
}

TEST_F(RendererTest, EnvironmentValues) {
  std::vector<std::string> values;
  for (const EnvVar& e : rendered_.ranks[2].env) values.push_back(e.value);
  EXPECT_THAT(values, ElementsAre("2", "6", "small-master.default.svc", "29500", "ps", "1", "2",
                                  "3", "/etc/distbench/config.yaml", "small", "9400", "30"));

  const RankProcess& trainer2 = rendered_.ranks[5];
  EXPECT_EQ(envValue(trainer2, kEnvRank), "5");
  EXPECT_EQ(envValue(trainer2, kEnvRole), "trainer");
  EXPECT_EQ(envValue(trainer2, kEnvRoleIndex), "2");
  const RankProcess& master = rendered_.ranks[0];
  EXPECT_EQ(envValue(master, kEnvRank), "0");
  EXPECT_EQ(envValue(master, kEnvRole), "master");
  EXPECT_EQ(envValue(master, kEnvRoleIndex), "0");
}

TEST_F(RendererTest, CommandAndPorts) {
  for (const RankProcess& p : rendered_.ranks) {
    SCOPED_TRACE(p.name);
    EXPECT_THAT(p.command,
                ElementsAre("distbench-worker", "--config", "/etc/distbench/config.yaml"));
    if (p.role == Role::Master) {
      EXPECT_THAT(p.ports, ElementsAre(29500, 9400));
    } else {
      EXPECT_THAT(p.ports, ElementsAre(9400));
    }
  }
}

TEST_F(RendererTest, ConfigIsTheResolvedSpec) {
  EXPECT_EQ(rendered_.configYaml, toYaml(test::minimalBenchmark()));
  EXPECT_EQ(parseDistBenchmark(rendered_.configYaml), test::minimalBenchmark());
}

TEST(RenderOptionsTest, OptionsReachEveryRank) {
  DistBenchmark b = test::minimalBenchmark();
  b.metadata.namespace_ = "ml";
  b.spec.runtime.masterPort = 31000;
  b.spec.runtime.metricsPort = 31001;
  b.spec.runtime.metricsLingerSeconds = 0;
  RenderOptions options;
  options.workerBinary = "/opt/distbench/bin/distbench-worker";
  options.configPath = "/tmp/run/config.yaml";
  const RenderedBenchmark r = render(b, options);
  EXPECT_EQ(envValue(r.ranks[3], kEnvMasterAddr), "small-master.ml.svc");
  EXPECT_EQ(envValue(r.ranks[3], kEnvMasterPort), "31000");
  EXPECT_EQ(envValue(r.ranks[3], kEnvMetricsPort), "31001");
  EXPECT_EQ(envValue(r.ranks[3], kEnvMetricsLinger), "0");
  EXPECT_EQ(envValue(r.ranks[3], kEnvConfig), "/tmp/run/config.yaml");
  EXPECT_THAT(r.ranks[3].command, ElementsAre("/opt/distbench/bin/distbench-worker", "--config",
                                              "/tmp/run/config.yaml"));
  EXPECT_THAT(r.ranks[0].ports, ElementsAre(31000, 31001));

  options.masterAddr = "127.0.0.1";
  options.metricsAddress = "127.0.0.1";
  for (const RankProcess& p : render(b, options).ranks) {
    EXPECT_EQ(envValue(p, kEnvMasterAddr), "127.0.0.1");
    EXPECT_EQ(envValue(p, kEnvMetricsAddress), "127.0.0.1");
  }
}

TEST(RenderValidationTest, InvalidBenchmarkIsNotRendered) {
  DistBenchmark b = test::minimalBenchmark();
  b.spec.topology.trainers = 0;
  EXPECT_THROW(render(b), SpecError);
}

TEST(RankLayoutTest, Functions) {
  const TopologySpec t{3, 2};
  EXPECT_EQ(masterRank(), 0);
  EXPECT_EQ(parameterServerRank(0), 1);
  EXPECT_EQ(parameterServerRank(1), 2);
  EXPECT_EQ(trainerRank(t, 0), 3);
  EXPECT_EQ(trainerRank(t, 2), 5);
  EXPECT_EQ(rankLabel(t, 0), "master");
  EXPECT_EQ(rankLabel(t, 2), "ps1");
  EXPECT_EQ(rankLabel(t, 3), "trainer0");
  EXPECT_EQ(rankLabel(t, 5), "trainer2");
  EXPECT_THROW(rankLabel(t, 6), std::out_of_range);
  EXPECT_THROW(rankLabel(t, -1), std::out_of_range);
  EXPECT_THROW(trainerRank(t, 3), std::out_of_range);
  EXPECT_THROW(parameterServerRank(-1), std::out_of_range);
  EXPECT_STREQ(toString(Role::Master), "master");
  EXPECT_STREQ(toString(Role::ParameterServer), "ps");
  EXPECT_STREQ(toString(Role::Trainer), "trainer");
}

}  // namespace
}  // namespace distbench::api
