// RenderOptions' port, linger and progress overrides, which `distbench run`
// needs because its ranks share one host. The point of making them renderer
// options is that the config file and each rank's environment agree; the
// Agreement tests fail if either side is changed without the other.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>

#include "distbench/api/renderer.h"
#include "test_util.h"

namespace distbench::api {
namespace {

using ::testing::ElementsAre;

std::optional<std::string> findEnv(const RankProcess& p, const std::string& name) {
  std::optional<std::string> found;
  for (const EnvVar& e : p.env) {
    if (e.name != name) continue;
    EXPECT_FALSE(found) << p.name << " sets " << name << " twice";
    found = e.value;
  }
  return found;
}

std::string envValue(const RankProcess& p, const std::string& name) {
  std::optional<std::string> value = findEnv(p, name);
  if (!value) ADD_FAILURE() << p.name << " has no " << name;
  return value.value_or("");
}

// What a rank is told in its environment against what the config file it
// reads says: the same rendezvous port, linger and benchmark for every
// rank, and the master's metrics port. `ports` matches the environment.
void expectConfigAndEnvironmentAgree(const RenderedBenchmark& r) {
  const DistBenchmark config = parseDistBenchmark(r.configYaml);
  const RuntimeSpec& rt = config.spec.runtime;
  for (const RankProcess& p : r.ranks) {
    SCOPED_TRACE(p.name);
    EXPECT_EQ(envValue(p, kEnvMasterPort), std::to_string(rt.masterPort));
    EXPECT_EQ(envValue(p, kEnvMetricsLinger), std::to_string(rt.metricsLingerSeconds));
    EXPECT_EQ(envValue(p, kEnvWorldSize), std::to_string(worldSize(config.spec)));
    EXPECT_EQ(envValue(p, kEnvBenchmarkName), config.metadata.name);
    const int metricsPort = std::stoi(envValue(p, kEnvMetricsPort));
    if (p.role == Role::Master) {
      EXPECT_EQ(metricsPort, rt.metricsPort);
      EXPECT_THAT(p.ports, ElementsAre(rt.masterPort, metricsPort));
    } else {
      EXPECT_THAT(p.ports, ElementsAre(metricsPort));
    }
  }
}

RenderOptions localOptions() {
  RenderOptions options;
  options.masterAddr = "127.0.0.1";
  options.masterPort = 40000;
  options.metricsPorts = {40001, 40002, 40003, 40004, 40005, 40006};
  options.metricsLingerSeconds = 3;
  options.progress = true;
  options.runKeyFile = "/run/key";
  return options;
}

TEST(RenderOverridesTest, AgreementWithoutOverrides) {
  expectConfigAndEnvironmentAgree(render(test::minimalBenchmark()));
}

TEST(RenderOverridesTest, AgreementWithOverrides) {
  expectConfigAndEnvironmentAgree(render(test::minimalBenchmark(), localOptions()));
}

TEST(RenderOverridesTest, OverridesReachEveryRankAndTheConfig) {
  const RenderedBenchmark r = render(test::minimalBenchmark(), localOptions());
  ASSERT_EQ(r.ranks.size(), 6u);
  for (std::size_t i = 0; i < r.ranks.size(); ++i) {
    SCOPED_TRACE(r.ranks[i].name);
    EXPECT_EQ(envValue(r.ranks[i], kEnvMasterPort), "40000");
    EXPECT_EQ(envValue(r.ranks[i], kEnvMetricsPort), std::to_string(40001 + i));
    EXPECT_EQ(envValue(r.ranks[i], kEnvMetricsLinger), "3");
    EXPECT_EQ(envValue(r.ranks[i], kEnvProgress), "1");
    EXPECT_EQ(envValue(r.ranks[i], kEnvRunKeyFile), "/run/key");
  }
  EXPECT_THAT(r.ranks[0].ports, ElementsAre(40000, 40001));
  EXPECT_THAT(r.ranks[5].ports, ElementsAre(40006));
  const RuntimeSpec rt = parseDistBenchmark(r.configYaml).spec.runtime;
  EXPECT_EQ(rt.masterPort, 40000);
  EXPECT_EQ(rt.metricsPort, 40001);
  EXPECT_EQ(rt.metricsLingerSeconds, 3);
}

TEST(RenderOverridesTest, NoOverridesLeaveTheSpecAndSetNoProgress) {
  const RenderedBenchmark r = render(test::minimalBenchmark());
  EXPECT_EQ(r.configYaml, toYaml(test::minimalBenchmark()));
  for (const RankProcess& p : r.ranks) {
    EXPECT_FALSE(findEnv(p, kEnvProgress)) << p.name;
    EXPECT_FALSE(findEnv(p, kEnvRunKeyFile)) << p.name;
  }
}

// The key itself never reaches the config file, which every rank and
// `distbench render` show: only the path of the file that holds it.
TEST(RenderOverridesTest, TheRunKeyFileIsNamedNotCopied) {
  const RenderedBenchmark r = render(test::minimalBenchmark(), localOptions());
  EXPECT_EQ(r.configYaml.find("/run/key"), std::string::npos);
}

TEST(RenderOverridesTest, NeedsOneMetricsPortPerRank) {
  RenderOptions options = localOptions();
  options.metricsPorts.pop_back();
  EXPECT_THROW(render(test::minimalBenchmark(), options), std::invalid_argument);
}

TEST(RenderOverridesTest, AnOverrideIsValidatedLikeTheSpec) {
  RenderOptions options;
  options.masterPort = 9400;  // the spec's metrics port
  EXPECT_THROW(render(test::minimalBenchmark(), options), SpecError);
}

}  // namespace
}  // namespace distbench::api
