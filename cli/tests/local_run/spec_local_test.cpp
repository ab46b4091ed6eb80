// spec.local is planned exactly as the flags it stands for: the same
// namespaces, addresses, tc lines and cgroups, and a flag overrides its part.
#include <gtest/gtest.h>

#include "distbench/api/renderer.h"
#include "distbench/api/spec_yaml.h"
#include "distbench/cli/local_run/link_spec.h"
#include "distbench/cli/local_run/sandbox_plan.h"
#include "distbench/cli/local_run/spec_local.h"

namespace distbench::cli {
namespace {

// 1 master, 1 parameter server, 2 trainers.
api::DistBenchmark withLocal(const std::string& local) {
  return api::parseDistBenchmark(
      "apiVersion: distbench.io/v1alpha1\n"
      "kind: DistBenchmark\n"
      "metadata: {name: local}\n"
      "spec:\n"
      "  topology: {trainers: 2, parameterServers: 1}\n"
      "  local:\n" +
      local);
}

SandboxPlan plan(const std::vector<api::RankProcess>& ranks, const LinkSpec& links,
                 const SlowSpec& slow) {
  std::map<int, double> rates;
  std::map<int, double> cpu;
  std::map<RankPair, double> pairs;
  if (!links.empty()) {
    rates = resolveLinks(links, ranks);
    pairs = resolvePairs(links, ranks);
  }
  if (!slow.empty()) cpu = resolveSlow(slow, ranks);
  return planSandbox("0a1b2c3d", ranks, rates, cpu, !links.empty(), pairs);
}

// The flags as the command line parses them.
LinkSpec linksFlag(const std::string& text) { return parseLinkSpec(text); }
SlowSpec slowFlag(const std::string& text) { return parseSlowSpec(text); }

// Every command the sandbox would run, and every cgroup it would make.
std::vector<std::string> everyLine(const SandboxPlan& p) {
  std::vector<std::string> lines = netnsAddLines(p);
  auto append = [&lines](const std::vector<std::string>& more) {
    lines.insert(lines.end(), more.begin(), more.end());
  };
  append(hubIpLines(p));
  append(hubTcLines(p));
  for (const RankSandbox& rank : p.ranks) {
    append(rankIpLines(p, rank));
    append(rankTcLines(rank));
    lines.push_back(rank.label + " cgroup " + rank.cgroup);
  }
  return lines;
}

TEST(SpecLocal, PlannedExactlyAsTheFlags) {
  const api::DistBenchmark b = withLocal(
      "    links: {bandwidth: 1gbit, ranks: {rank3: 100mbit, ps0: 10mbit}}\n"
      "    slow: {trainer0: {cpu: 50%}, master: {cpu: \"0.25\"}}\n");
  const std::vector<api::RankProcess> ranks = api::render(b).ranks;
  const SandboxRequest request = sandboxRequest(b.spec.local, {}, {});
  const SandboxPlan fromSpec = plan(ranks, request.links, request.slow);
  const SandboxPlan fromFlags =
      plan(ranks, linksFlag("bandwidth=1gbit;rank3=100mbit;ps0=10mbit"),
           slowFlag("trainer0=cpu:50%;master=cpu:0.25"));
  EXPECT_EQ(everyLine(fromSpec), everyLine(fromFlags));
  ASSERT_EQ(fromSpec.ranks.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(fromSpec.ranks[i].linkBitsPerSecond, fromFlags.ranks[i].linkBitsPerSecond) << i;
    EXPECT_EQ(fromSpec.ranks[i].cpuLimit, fromFlags.ranks[i].cpuLimit) << i;
  }
  // And the plan is what was asked for, not merely the same mistake twice.
  EXPECT_EQ(fromSpec.ranks[1].linkBitsPerSecond, 10e6);
  EXPECT_EQ(fromSpec.ranks[2].linkBitsPerSecond, 1e9);
  EXPECT_EQ(fromSpec.ranks[3].linkBitsPerSecond, 100e6);
  EXPECT_EQ(fromSpec.ranks[2].cpuLimit, 0.5);
  EXPECT_EQ(fromSpec.ranks[0].cpuLimit, 0.25);
  EXPECT_FALSE(fromSpec.ranks[1].cpuLimit);
  EXPECT_EQ(request.notes,
            (std::vector<std::string>{
                "distbench: spec.local.links, as --links \"bandwidth=1gbit;ps0=10mbit;rank3=100mbit\"",
                "distbench: spec.local.slow, as --slow \"master=cpu:0.25;trainer0=cpu:50%\""}));
}

TEST(SpecLocal, PairsPlannedExactlyAsTheFlags) {
  const api::DistBenchmark b =
      withLocal("    links: {ranks: {rank3: 100mbit}, pairs: {trainer1-master: 50mbit}}\n");
  const std::vector<api::RankProcess> ranks = api::render(b).ranks;
  const SandboxRequest request = sandboxRequest(b.spec.local, {}, {});
  EXPECT_EQ(request.links.text, "rank3=100mbit;trainer1-master=50mbit");
  const SandboxPlan fromSpec = plan(ranks, request.links, {});
  const SandboxPlan fromFlags = plan(ranks, linksFlag("rank0-rank3=50mbit;rank3=100mbit"), {});
  EXPECT_EQ(everyLine(fromSpec), everyLine(fromFlags));
  EXPECT_EQ(fromSpec.pairs, (std::map<RankPair, double>{{{0, 3}, 50e6}}));
  EXPECT_EQ(fromSpec.ranks[0].peerBitsPerSecond, (std::map<int, double>{{3, 50e6}}));
  EXPECT_EQ(fromSpec.ranks[3].peerBitsPerSecond, (std::map<int, double>{{0, 50e6}}));
}

TEST(SpecLocal, AFlagOverridesItsPartOnly) {
  const api::DistBenchmark b = withLocal(
      "    links: {bandwidth: 1gbit}\n"
      "    slow: {rank3: {cpu: 50%}}\n");
  SandboxRequest request = sandboxRequest(b.spec.local, linksFlag("bandwidth=200mbit"), {});
  EXPECT_EQ(request.links.text, "bandwidth=200mbit");
  EXPECT_EQ(request.slow.text, "rank3=cpu:50%");
  EXPECT_EQ(request.notes, (std::vector<std::string>{
                               "distbench: --links overrides spec.local.links",
                               "distbench: spec.local.slow, as --slow \"rank3=cpu:50%\""}));
  request = sandboxRequest(b.spec.local, {}, slowFlag("rank2=cpu:10%"));
  EXPECT_EQ(request.links.text, "bandwidth=1gbit");
  EXPECT_EQ(request.links.defaultBitsPerSecond, 1e9);
  EXPECT_EQ(request.slow.text, "rank2=cpu:10%");
  EXPECT_EQ(request.notes.back(), "distbench: --slow overrides spec.local.slow");
}

TEST(SpecLocal, WithoutTheBlockOnlyTheFlags) {
  SandboxRequest request = sandboxRequest(std::nullopt, {}, slowFlag("rank1=cpu:20%"));
  EXPECT_TRUE(request.links.empty());
  EXPECT_EQ(request.slow.text, "rank1=cpu:20%");
  EXPECT_TRUE(request.notes.empty());
  // A CPU-only block makes no namespaces, as --slow alone makes none.
  const api::DistBenchmark b = withLocal("    slow: {rank1: {cpu: 20%}}\n");
  request = sandboxRequest(b.spec.local, {}, {});
  EXPECT_TRUE(request.links.empty());
  EXPECT_TRUE(netnsAddLines(plan(api::render(b).ranks, request.links, request.slow)).empty());
}

}  // namespace
}  // namespace distbench::cli
