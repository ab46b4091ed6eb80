// The pure parts of `distbench run --links/--slow`: the flags' text, the
// plan of namespaces, addresses and tc lines, cgroup mounts and tc counters.
#include <cpprest/json.h>
#include <gtest/gtest.h>

#include "distbench/cli/local_run/cgroup_cpu.h"
#include "distbench/cli/local_run/link_spec.h"
#include "distbench/cli/local_run/sandbox_plan.h"
#include "distbench/cli/local_run/sandbox_stats.h"

namespace distbench::cli {
namespace {

std::vector<api::RankProcess> ranks() {
  std::vector<api::RankProcess> result;
  const std::vector<std::pair<std::string, api::Role>> labels = {
      {"master", api::Role::Master}, {"ps0", api::Role::ParameterServer},
      {"trainer0", api::Role::Trainer}, {"trainer1", api::Role::Trainer}};
  for (std::size_t i = 0; i < labels.size(); ++i) {
    api::RankProcess rank;
    rank.rankLabel = labels[i].first;
    rank.role = labels[i].second;
    rank.rank = static_cast<int>(i);
    result.push_back(rank);
  }
  return result;
}

template <typename F>
std::string errorOf(F&& f) {
  try {
    f();
  } catch (const SandboxSpecError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(LinkSpec, DefaultAndPerRankRates) {
  LinkSpec spec = parseLinkSpec("bandwidth=1gbit; rank3=100mbit, trainer0=bandwidth:500kbit");
  ASSERT_TRUE(spec.defaultBitsPerSecond);
  EXPECT_DOUBLE_EQ(*spec.defaultBitsPerSecond, 1e9);
  std::map<int, double> links = resolveLinks(spec, ranks());
  EXPECT_EQ(links, (std::map<int, double>{{0, 1e9}, {1, 1e9}, {2, 5e5}, {3, 1e8}}));
}

TEST(LinkSpec, OnlyListedRanksWithoutADefault) {
  std::map<int, double> links = resolveLinks(parseLinkSpec("ps0=10mbit"), ranks());
  EXPECT_EQ(links, (std::map<int, double>{{1, 1e7}}));
}

TEST(LinkSpec, RefusesLatencyWithTheReason) {
  for (const char* text : {"latency=10ms", "bandwidth=1gbit;delay=5ms", "rank1=latency:3ms"}) {
    std::string error = errorOf([&] { parseLinkSpec(text); });
    EXPECT_NE(error.find("latency cannot be emulated"), std::string::npos) << text << ": " << error;
    EXPECT_NE(error.find("netem"), std::string::npos) << error;
  }
}

TEST(LinkSpec, BadInputNamesTheEntry) {
  EXPECT_NE(errorOf([] { parseLinkSpec("rank2=fast"); }).find("rank2=fast"), std::string::npos);
  EXPECT_NE(errorOf([] { parseLinkSpec("rank2"); }).find("'rank2' is not KEY=VALUE"),
            std::string::npos);
  EXPECT_NE(errorOf([] { parseLinkSpec(""); }).find("--links needs"), std::string::npos);
  EXPECT_NE(errorOf([] { parseLinkSpec("rank1=1gbit;rank1=2gbit"); }).find("rank1 is given twice"),
            std::string::npos);
  EXPECT_NE(errorOf([] { parseLinkSpec("rank1=cpu:50%"); }).find("only bandwidth:RATE"),
            std::string::npos);
}

TEST(LinkSpec, UnknownSelectorsNameTheRanksThatExist) {
  std::string error = errorOf([] { resolveLinks(parseLinkSpec("rank9=1gbit"), ranks()); });
  EXPECT_NE(error.find("--links: rank9: no rank 9: the topology has 4 ranks (0 to 3)"),
            std::string::npos)
      << error;
  error = errorOf([] { resolveLinks(parseLinkSpec("trainer7=1gbit"), ranks()); });
  EXPECT_NE(error.find("no rank 'trainer7'"), std::string::npos) << error;
  EXPECT_NE(error.find("master, ps0, trainer0, trainer1"), std::string::npos) << error;
  error = errorOf([] { resolveLinks(parseLinkSpec("rank2=1gbit;trainer0=2gbit"), ranks()); });
  EXPECT_NE(error.find("trainer0 names rank 2, which another entry names too"), std::string::npos)
      << error;
}

TEST(LinkSpec, PairsAreUnorderedAndApart) {
  LinkSpec spec =
      parseLinkSpec("bandwidth=1gbit;trainer1-MASTER=50mbit;rank1-rank2=bandwidth:5mbit");
  EXPECT_EQ(spec.pairs.size(), 2u);
  EXPECT_EQ(resolvePairs(spec, ranks()),
            (std::map<RankPair, double>{{{0, 3}, 50e6}, {{1, 2}, 5e6}}));
  // A pair names no rank's own rate.
  EXPECT_EQ(resolveLinks(spec, ranks()),
            (std::map<int, double>{{0, 1e9}, {1, 1e9}, {2, 1e9}, {3, 1e9}}));
  EXPECT_FALSE(parseLinkSpec("rank0-rank1=1gbit").empty());
}

TEST(LinkSpec, BadPairsNameTheFlagAndTheEntry) {
  auto resolved = [](const std::string& text) {
    return errorOf([&] { resolvePairs(parseLinkSpec(text), ranks()); });
  };
  EXPECT_EQ(resolved("trainer0-rank9=1gbit"),
            "--links: trainer0-rank9: no rank 9: the topology has 4 ranks (0 to 3)");
  EXPECT_EQ(resolved("rank3-trainer1=1gbit"), "--links: rank3-trainer1: pairs rank 3 with itself");
  EXPECT_EQ(resolved("rank1-=1gbit"),
            "--links: rank1-: 'rank1-' is not a pair of ranks (write trainer1-trainer3)");
  EXPECT_EQ(resolved("rank0-rank3=1gbit;trainer1-master=2gbit"),
            "--links: trainer1-master names the link of ranks 0 and 3, which rank0-rank3 names "
            "too");
  EXPECT_EQ(errorOf([] { parseLinkSpec("rank0-rank3=1gbit;rank0-rank3=2gbit"); }),
            "--links: rank0-rank3 is given twice");
  EXPECT_NE(errorOf([] { parseLinkSpec("rank0-rank3=slow"); }).find("--links: rank0-rank3=slow: "),
            std::string::npos);
  EXPECT_NE(errorOf([] { parseLinkSpec("rank0-rank3=latency:5ms"); }).find("netem"),
            std::string::npos);
}

TEST(SlowSpec, PercentOrFractionOfOneCpu) {
  std::map<int, double> cpu = resolveSlow(parseSlowSpec("rank3=cpu:50%;master=cpu:0.25"), ranks());
  EXPECT_EQ(cpu, (std::map<int, double>{{0, 0.25}, {3, 0.5}}));
  EXPECT_NE(errorOf([] { parseSlowSpec("rank3=50%"); }).find("rank3=50%: expected cpu:PERCENT%"),
            std::string::npos);
  EXPECT_NE(errorOf([] { parseSlowSpec("rank3=cpu:half"); }).find("'half' is not a number"),
            std::string::npos);
  EXPECT_NE(errorOf([] { parseSlowSpec("rank3=cpu:0%"); }).find("between 1%"), std::string::npos);
}

TEST(SandboxPlan, TbfLinesUseTheReportsBurst) {
  // The bucket's size is report::tbfBurstBytes (alpha_beta_test.cpp), so
  // that distbench predict models the links distbench run shapes.
  EXPECT_EQ(tbfLine("eth0", 1e9), "qdisc add dev eth0 root tbf rate 1000000000bit burst 125000 latency 50ms");
}

TEST(SandboxPlan, AddressesFromTheBenchmarkingRange) {
  EXPECT_EQ(rankAddress(0), "198.18.0.16");
  EXPECT_EQ(rankAddress(239), "198.18.0.255");
  EXPECT_EQ(rankAddress(240), "198.18.1.0");
  EXPECT_EQ(rankAddress(4095), "198.18.16.15");
}

TEST(SandboxPlan, GoldenLines) {
  std::vector<api::RankProcess> all = ranks();
  all.resize(2);  // master, ps0
  SandboxPlan plan = planSandbox("0a1b2c3d", all, {{1, 100e6}}, {{0, 0.5}}, true);
  EXPECT_EQ(plan.hubNetns, "dbl-0a1b2c3d-hub");
  EXPECT_EQ(netnsAddLines(plan), (std::vector<std::string>{"netns add dbl-0a1b2c3d-hub",
                                                          "netns add dbl-0a1b2c3d-r0",
                                                          "netns add dbl-0a1b2c3d-r1"}));
  EXPECT_EQ(hubIpLines(plan),
            (std::vector<std::string>{"link set lo up", "link add br0 type bridge",
                                      "link set br0 up",
                                      "link add r0 type veth peer name eth0 netns dbl-0a1b2c3d-r0",
                                      "link set r0 master br0", "link set r0 up",
                                      "link add r1 type veth peer name eth0 netns dbl-0a1b2c3d-r1",
                                      "link set r1 master br0", "link set r1 up"}));
  EXPECT_EQ(rankIpLines(plan, plan.ranks[1]),
            (std::vector<std::string>{"link set lo up", "addr add 198.18.0.17/16 dev eth0",
                                      "link set eth0 up", "link set eth0 gso_max_size 30000"}));
  EXPECT_EQ(hubTcLines(plan),
            (std::vector<std::string>{
                "qdisc add dev r1 root tbf rate 100000000bit burst 32768 latency 50ms"}));
  EXPECT_TRUE(rankTcLines(plan.ranks[0]).empty());
  EXPECT_EQ(rankTcLines(plan.ranks[1]),
            (std::vector<std::string>{
                "qdisc add dev eth0 root tbf rate 100000000bit burst 32768 latency 50ms"}));
  EXPECT_EQ(plan.ranks[0].cgroup, "distbench/0a1b2c3d/r0");
  EXPECT_EQ(plan.ranks[1].cgroup, "");
}

// rank1 has its own rate and a pair with rank3; rank3 has no rate of its
// own, so its other traffic leaves through htb's direct queue, unshaped.
TEST(SandboxPlan, PairsGetHtbClassesAtBothEnds) {
  SandboxPlan plan =
      planSandbox("0a1b2c3d", ranks(), {{1, 100e6}, {2, 10e6}}, {}, true, {{{1, 3}, 50e6}});
  EXPECT_EQ(pairClassId(3), "1:5");
  EXPECT_EQ(pairClassId(14), "1:10");
  const std::string c50 =
      "htb rate 50000000bit ceil 50000000bit burst 32768 cburst 32768 quantum 60000";
  EXPECT_EQ(rankTcLines(plan.ranks[1]),
            (std::vector<std::string>{
                "qdisc add dev eth0 root handle 1: htb default 1",
                "class add dev eth0 parent 1: classid 1:1 htb rate 100000000bit ceil 100000000bit "
                "burst 32768 cburst 32768 quantum 60000",
                "class add dev eth0 parent 1: classid 1:5 " + c50,
                "filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip dst "
                "198.18.0.19/32 flowid 1:5"}));
  EXPECT_EQ(
      rankTcLines(plan.ranks[3]),
      (std::vector<std::string>{"qdisc add dev eth0 root handle 1: htb default 0",
                                "class add dev eth0 parent 1: classid 1:3 " + c50,
                                "filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip dst "
                                "198.18.0.17/32 flowid 1:3"}));
  // rank2 is in no pair: tbf as before. The hub side matches the sender.
  EXPECT_EQ(rankTcLines(plan.ranks[2]),
            (std::vector<std::string>{
                "qdisc add dev eth0 root tbf rate 10000000bit burst 32768 latency 50ms"}));
  EXPECT_TRUE(rankTcLines(plan.ranks[0]).empty());
  EXPECT_EQ(hubTcLines(plan),
            (std::vector<std::string>{
                "qdisc add dev r1 root handle 1: htb default 1",
                "class add dev r1 parent 1: classid 1:1 htb rate 100000000bit ceil 100000000bit "
                "burst 32768 cburst 32768 quantum 60000",
                "class add dev r1 parent 1: classid 1:5 " + c50,
                "filter add dev r1 parent 1: protocol ip prio 1 u32 match ip src 198.18.0.19/32 "
                "flowid 1:5",
                "qdisc add dev r2 root tbf rate 10000000bit burst 32768 latency 50ms",
                "qdisc add dev r3 root handle 1: htb default 0",
                "class add dev r3 parent 1: classid 1:3 " + c50,
                "filter add dev r3 parent 1: protocol ip prio 1 u32 match ip src 198.18.0.17/32 "
                "flowid 1:3"}));
}

TEST(SandboxPlan, CpuOnlyMakesNoNamespaces) {
  SandboxPlan plan = planSandbox("0a1b2c3d", ranks(), {}, {{3, 0.5}}, false);
  EXPECT_TRUE(netnsAddLines(plan).empty());
  EXPECT_TRUE(hubIpLines(plan).empty());
  EXPECT_EQ(plan.ranks[3].netns, "");
  EXPECT_EQ(plan.ranks[3].address, "");
}

TEST(SandboxPlan, CpuQuotaOnA10msPeriodLongerForSmallCaps) {
  EXPECT_EQ(cpuPeriodMicros(0.5), 10000);
  EXPECT_EQ(cpuQuotaMicros(0.5), 5000);
  EXPECT_EQ(cpuQuotaMicros(2.0), 20000);
  EXPECT_EQ(cpuPeriodMicros(0.05), 20000);  // 1 ms is the smallest quota
  EXPECT_EQ(cpuQuotaMicros(0.05), 1000);
}

TEST(CgroupMounts, V1CpuHierarchyNotCpuacctOrCpuset) {
  const std::string mountinfo =
      "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
      "33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"
      "34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
      "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime shared:15 - cgroup cgroup rw,cpu\n"
      "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
  CgroupMounts mounts = parseCgroupMounts(mountinfo);
  ASSERT_TRUE(mounts.v1Cpu);
  EXPECT_EQ(*mounts.v1Cpu, "/sys/fs/cgroup/cpu");
  EXPECT_EQ(mounts.v2, (std::vector<std::string>{"/sys/fs/cgroup/unified"}));
}

TEST(CgroupMounts, CoMountedCpuCpuacctAndPureV2) {
  CgroupMounts v1 = parseCgroupMounts(
      "30 25 0:26 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid - cgroup cgroup rw,cpu,cpuacct\n");
  ASSERT_TRUE(v1.v1Cpu);
  EXPECT_EQ(*v1.v1Cpu, "/sys/fs/cgroup/cpu,cpuacct");
  CgroupMounts v2 = parseCgroupMounts(
      "25 30 0:22 / /sys/fs/cgroup rw,nosuid,nodev shared:4 - cgroup2 cgroup2 rw,nsdelegate\n");
  EXPECT_FALSE(v2.v1Cpu);
  EXPECT_EQ(v2.v2, (std::vector<std::string>{"/sys/fs/cgroup"}));
}

TEST(SandboxStats, TbfCountersFromTcJson) {
  const std::string tc =
      R"([{"kind":"tbf","handle":"8009:","root":true,"refcnt":2,)"
      R"("options":{"rate":12500000,"burst":32762,"lat":50000},"bytes":20300000,)"
      R"("packets":14000,"drops":1,"overlimits":812,"requeues":0,"backlog":0,"qlen":0}])";
  std::optional<QdiscCounters> counters = parseTbfCounters(tc);
  ASSERT_TRUE(counters);
  EXPECT_EQ(counters->bytes, 20300000);
  EXPECT_EQ(counters->packets, 14000);
  EXPECT_EQ(counters->overlimits, 812);
  EXPECT_EQ(counters->drops, 1);
  EXPECT_FALSE(parseTbfCounters(R"([{"kind":"noqueue","bytes":5}])"));
  EXPECT_FALSE(parseTbfCounters("Cannot find device \"eth0\""));
  // A rank in a pair has htb at the root.
  std::optional<QdiscCounters> htb = parseTbfCounters(
      R"([{"kind":"htb","handle":"1:","root":true,"options":{"r2q":10,"default":"0"},)"
      R"("bytes":900,"packets":9,"drops":2,"overlimits":3,"requeues":0}])");
  ASSERT_TRUE(htb);
  EXPECT_EQ(htb->bytes, 900);
  EXPECT_EQ(htb->drops, 2);
}

TEST(SandboxStats, HtbClassCountersFromTcText) {
  // iproute2 6.1, `tc -s class show dev eth0 classid 1:5`.
  std::optional<QdiscCounters> c = parseClassCounters(
      "class htb 1:5 root prio 0 rate 50Mbit ceil 50Mbit burst 32Kb cburst 32Kb \n"
      " Sent 6252960 bytes 4132 pkt (dropped 11, overlimits 2719 requeues 0) \n"
      " backlog 0b 0p requeues 0\n");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->bytes, 6252960);
  EXPECT_EQ(c->packets, 4132);
  EXPECT_EQ(c->drops, 11);
  EXPECT_EQ(c->overlimits, 2719);
  EXPECT_FALSE(parseClassCounters(""));
  EXPECT_FALSE(parseClassCounters("Sent lots"));
}

TEST(SandboxStats, LocalBlockListsPairLinks) {
  SandboxPlan plan = planSandbox("0a1b2c3d", ranks(), {}, {}, true, {{{0, 3}, 50e6}});
  std::map<int, RankCounters> counters;
  counters[3].sentToPeer[0] = QdiscCounters{777, 7, 1, 2};
  auto local =
      web::json::value::parse(localBlockJson(plan, "master-trainer1=50mbit", "", counters));
  ASSERT_EQ(local.at("pairs").size(), 1u);
  const auto& pair = local.at("pairs").at(0);
  EXPECT_EQ(pair.at("ranks").at(0).as_integer(), 0);
  EXPECT_EQ(pair.at("ranks").at(1).as_integer(), 3);
  EXPECT_EQ(pair.at("names").at(1).as_string(), "trainer1");
  EXPECT_DOUBLE_EQ(pair.at("bitsPerSecond").as_double(), 50e6);
  EXPECT_TRUE(pair.at("sent").at(0).is_null());
  EXPECT_EQ(pair.at("sent").at(1).at("bytes").as_integer(), 777);
  // Neither rank has a rate of its own.
  EXPECT_TRUE(local.at("ranks").at(0).at("linkBitsPerSecond").is_null());
}

TEST(SandboxStats, LocalBlockFollowsTheContract) {
  std::vector<api::RankProcess> all = ranks();
  all.resize(2);
  SandboxPlan plan = planSandbox("0a1b2c3d", all, {{1, 1e8}}, {{0, 0.5}}, true);
  std::map<int, RankCounters> counters;
  counters[0].cpuSeconds = 1.5;
  counters[0].throttledSeconds = 0.25;
  counters[1].egress = QdiscCounters{123, 4, 0, 0};
  counters[1].ingress = QdiscCounters{456, 5, 7, 0};
  auto local = web::json::value::parse(localBlockJson(plan, "rank1=100mbit", "master=cpu:50%", counters));
  EXPECT_EQ(local.at("links").as_string(), "rank1=100mbit");
  EXPECT_EQ(local.at("slow").as_string(), "master=cpu:50%");
  EXPECT_FALSE(local.at("latencyEmulated").as_bool());
  const auto& master = local.at("ranks").at(0);
  EXPECT_EQ(master.at("name").as_string(), "master");
  EXPECT_EQ(master.at("address").as_string(), "198.18.0.16");
  EXPECT_TRUE(master.at("linkBitsPerSecond").is_null());
  EXPECT_DOUBLE_EQ(master.at("cpuLimit").as_double(), 0.5);
  EXPECT_DOUBLE_EQ(master.at("cpuSeconds").as_double(), 1.5);
  EXPECT_DOUBLE_EQ(master.at("throttledSeconds").as_double(), 0.25);
  EXPECT_TRUE(master.at("egress").is_null());
  const auto& ps = local.at("ranks").at(1);
  EXPECT_EQ(ps.at("rank").as_integer(), 1);
  EXPECT_DOUBLE_EQ(ps.at("linkBitsPerSecond").as_double(), 1e8);
  EXPECT_TRUE(ps.at("cpuLimit").is_null());
  EXPECT_TRUE(ps.at("cpuSeconds").is_null());
  EXPECT_TRUE(ps.at("throttledSeconds").is_null());
  EXPECT_EQ(ps.at("egress").at("bytes").as_integer(), 123);
  EXPECT_EQ(ps.at("ingress").at("overlimits").as_integer(), 7);
  EXPECT_EQ(local.at("pairs").size(), 0u);
}

}  // namespace
}  // namespace distbench::cli
