#include "local_wiring.h"

#include <gtest/gtest.h>

#include "distbench/api/spec_yaml.h"

namespace distbench::cli {
namespace {

using api::RankProcess;
using api::Role;

RankProcess rank(const std::string& label, Role role, int number) {
  RankProcess r;
  r.name = "b-" + label;
  r.rankLabel = label;
  r.role = role;
  r.rank = number;
  r.env = {{api::kEnvMasterPort, "29500"}, {api::kEnvMetricsPort, "9400"}, {"KEEP", "me"}};
  r.command = {"distbench-worker", "--role", api::toString(role)};
  r.ports = {29500, 9400};
  return r;
}

std::string env(const RankProcess& r, const std::string& name) {
  std::string found = "(unset)";
  int count = 0;
  for (const auto& var : r.env) {
    if (var.name == name) {
      found = var.value;
      ++count;
    }
  }
  EXPECT_LE(count, 1) << name << " is set more than once";
  return found;
}

TEST(WireForLocalRun, PortsLingerAndProgress) {
  std::vector<RankProcess> ranks = {rank("master", Role::Master, 0), rank("ps0", Role::ParameterServer, 1),
                                    rank("trainer0", Role::Trainer, 2)};
  LocalWiring wiring;
  wiring.masterPort = 40000;
  wiring.metricsPorts = {40001, 40002, 40003};
  wiring.metricsLingerSeconds = 3;
  wireForLocalRun(ranks, wiring);
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    EXPECT_EQ(env(ranks[i], api::kEnvMasterPort), "40000");
    EXPECT_EQ(env(ranks[i], api::kEnvMetricsPort), std::to_string(40001 + i));
    EXPECT_EQ(env(ranks[i], api::kEnvMetricsLinger), "3");
    EXPECT_EQ(env(ranks[i], "DISTBENCH_PROGRESS"), "1");
    EXPECT_EQ(env(ranks[i], "KEEP"), "me");
  }
  EXPECT_EQ(ranks[0].ports, (std::vector<int>{40000, 40001}));
  EXPECT_EQ(ranks[2].ports, (std::vector<int>{40003}));
  EXPECT_EQ(ranks[1].command.size(), 3u) << "no flags asked for, none added";
}

TEST(WireForLocalRun, ReportGoesToTheMasterOnlyDumpStateToEveryone) {
  std::vector<RankProcess> ranks = {rank("master", Role::Master, 0), rank("trainer0", Role::Trainer, 1)};
  LocalWiring wiring;
  wiring.masterPort = 1;
  wiring.metricsPorts = {2, 3};
  wiring.reportPath = "/tmp/r.json";
  wiring.dumpStateDir = "/tmp/state";
  wireForLocalRun(ranks, wiring);
  EXPECT_EQ(ranks[0].command, (std::vector<std::string>{"distbench-worker", "--role", "master", "--report",
                                                        "/tmp/r.json", "--dump-state", "/tmp/state"}));
  EXPECT_EQ(ranks[1].command, (std::vector<std::string>{"distbench-worker", "--role", "trainer",
                                                        "--dump-state", "/tmp/state"}));
}

TEST(WireForLocalRun, NeedsOneMetricsPortPerRank) {
  std::vector<RankProcess> ranks = {rank("master", Role::Master, 0)};
  LocalWiring wiring;
  wiring.metricsPorts = {1, 2};
  EXPECT_THROW(wireForLocalRun(ranks, wiring), std::invalid_argument);
}


// What `distbench run` does: the overrides go through the renderer, so the
// config file the ranks read carries the ports their environment names.
TEST(RenderForLocalRun, ConfigAndEnvironmentAgree) {
  api::DistBenchmark b;
  b.metadata.name = "b";
  b.spec.topology.trainers = 2;
  b.spec.topology.parameterServers = 1;
  LocalWiring wiring;
  wiring.masterPort = 40000;
  wiring.metricsPorts = {40001, 40002, 40003, 40004};
  wiring.metricsLingerSeconds = 3;
  wiring.reportPath = "/tmp/r.json";
  api::RenderOptions options;
  options.masterAddr = "127.0.0.1";
  const api::RenderedBenchmark rendered = renderForLocalRun(b, options, wiring);
  const api::RuntimeSpec config = api::parseDistBenchmark(rendered.configYaml).spec.runtime;
  EXPECT_EQ(config.masterPort, 40000);
  EXPECT_EQ(config.metricsPort, 40001) << "the master's";
  EXPECT_EQ(config.metricsLingerSeconds, 3);
  ASSERT_EQ(rendered.ranks.size(), 4u);
  for (std::size_t i = 0; i < rendered.ranks.size(); ++i) {
    const RankProcess& r = rendered.ranks[i];
    SCOPED_TRACE(r.name);
    EXPECT_EQ(env(r, api::kEnvMasterPort), std::to_string(config.masterPort));
    EXPECT_EQ(env(r, api::kEnvMetricsPort), std::to_string(40001 + i));
    EXPECT_EQ(env(r, api::kEnvMetricsLinger), std::to_string(config.metricsLingerSeconds));
    EXPECT_EQ(env(r, api::kEnvProgress), "1");
  }
  EXPECT_EQ(rendered.ranks[0].ports, (std::vector<int>{40000, 40001}));
  EXPECT_EQ(rendered.ranks[3].ports, (std::vector<int>{40004}));
  EXPECT_EQ(rendered.ranks[0].command.back(), "/tmp/r.json");
  EXPECT_EQ(rendered.ranks[1].command.size(), 3u) << "--report is the master's alone";
}

}  // namespace
}  // namespace distbench::cli
