#include "distbench/cli/local_run/local_wiring.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <iterator>

#include "distbench/api/run_key.h"
#include "distbench/api/spec_yaml.h"
#include "distbench/process/temp_dir.h"

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
  r.command = {"distbench-worker", "--role", api::toString(role)};
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

TEST(AddLocalFlags, ReportGoesToTheMasterOnlyDumpStateToEveryone) {
  std::vector<RankProcess> ranks = {rank("master", Role::Master, 0),
                                    rank("trainer0", Role::Trainer, 1)};
  LocalWiring wiring;
  wiring.reportPath = "/tmp/r.json";
  wiring.dumpStateDir = "/tmp/state";
  addLocalFlags(ranks, wiring);
  EXPECT_EQ(ranks[0].command,
            (std::vector<std::string>{"distbench-worker", "--role", "master", "--report",
                                      "/tmp/r.json", "--dump-state", "/tmp/state"}));
  EXPECT_EQ(ranks[1].command, (std::vector<std::string>{"distbench-worker", "--role", "trainer",
                                                        "--dump-state", "/tmp/state"}));
}

TEST(AddLocalFlags, NoneAskedForNoneAdded) {
  std::vector<RankProcess> ranks = {rank("master", Role::Master, 0),
                                    rank("ps0", Role::ParameterServer, 1)};
  addLocalFlags(ranks, LocalWiring{});
  EXPECT_EQ(ranks[0].command.size(), 3u);
  EXPECT_EQ(ranks[1].command.size(), 3u);
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
    EXPECT_EQ(env(r, api::kEnvMetricsAddress), "127.0.0.1") << "local /metrics on loopback";
  }
  EXPECT_EQ(rendered.ranks[0].ports, (std::vector<int>{40000, 40001}));
  EXPECT_EQ(rendered.ranks[3].ports, (std::vector<int>{40004}));
  EXPECT_EQ(rendered.ranks[0].command.back(), "/tmp/r.json");
  EXPECT_EQ(rendered.ranks[1].command.size(), 3u) << "--report is the master's alone";
}

// Every rank on one machine: its trainers share its GPUs, numbered as
// torchrun numbers local ranks, so a CUDA trainer picks GPU LOCAL_RANK.
TEST(RenderForLocalRun, TrainersShareTheHostsGpus) {
  api::DistBenchmark b;
  b.metadata.name = "b";
  b.spec.topology.trainers = 3;
  b.spec.topology.parameterServers = 1;
  b.spec.runtime.device = api::Device::CUDA;
  LocalWiring wiring;
  wiring.masterPort = 40000;
  wiring.metricsPorts = {40001, 40002, 40003, 40004, 40005};
  api::RenderOptions options;
  options.masterAddr = "127.0.0.1";
  const api::RenderedBenchmark rendered = renderForLocalRun(b, options, wiring);
  ASSERT_EQ(rendered.ranks.size(), 5u);
  for (const RankProcess& r : rendered.ranks) {
    SCOPED_TRACE(r.name);
    if (r.role == Role::Trainer) {
      EXPECT_EQ(env(r, api::kEnvLocalRank), std::to_string(r.roleIndex));
      EXPECT_EQ(env(r, api::kEnvLocalWorldSize), "3");
    } else {
      EXPECT_EQ(env(r, api::kEnvLocalRank), "(unset)") << "only trainers use GPUs";
      EXPECT_EQ(env(r, api::kEnvLocalWorldSize), "(unset)");
    }
  }
}

TEST(RenderForLocalRun, NeedsOneMetricsPortPerRank) {
  api::DistBenchmark b;
  b.metadata.name = "b";
  b.spec.topology.trainers = 2;
  b.spec.topology.parameterServers = 1;
  LocalWiring wiring;
  wiring.metricsPorts = {40001, 40002, 40003};  // four ranks
  api::RenderOptions options;
  options.masterAddr = "127.0.0.1";
  EXPECT_THROW(renderForLocalRun(b, options, wiring), std::invalid_argument);
}

// Only the user who runs `distbench run` may read the key; a file that is
// there already (planted, or a second run) is never written through.
TEST(RunKeyFile, IsANewKeyOnlyItsOwnerMayReadAndNeverOverwritten) {
  process::TempDir dir("distbench-run-key-");
  const std::string path = dir.path() + "/run-key";
  ASSERT_TRUE(writeRunKeyFile(path));
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::ifstream in(path);
  const std::string key((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(api::isValidRunKey(key)) << key;
  EXPECT_FALSE(writeRunKeyFile(path));
  std::ifstream again(path);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>()),
            key);
}

}  // namespace
}  // namespace distbench::cli
