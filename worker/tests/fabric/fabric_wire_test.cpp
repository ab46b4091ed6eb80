// What a Fabric trainer hands the master, and the master's assembly of it.
#include "distbench/worker/fabric/fabric_wire.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>

namespace distbench::worker {
namespace {

using ::testing::HasSubstr;

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(FabricWire, ResultRoundTrips) {
  FabricRankResult r;
  r.node = "node-a.example";
  r.probeSeconds = {0.01, 0.012};
  r.received = {{0, 2, 4096, {1e-4, 2e-4}}, {1, 0, 1048576, {0.02}}};
  r.allreduceSeconds = {0.5, 0.4, 0.45};
  const FabricRankResult back = decodeFabricResult(encodeFabricResult(r), "trainer1 (rank 2)");
  EXPECT_EQ(back.node, r.node);
  EXPECT_EQ(back.probeSeconds, r.probeSeconds);
  ASSERT_EQ(back.received.size(), 2u);
  EXPECT_EQ(back.received[1].round, 1);
  EXPECT_EQ(back.received[1].sender, 0);
  EXPECT_EQ(back.received[1].bytes, 1048576);
  EXPECT_EQ(back.received[0].seconds, r.received[0].seconds);
  EXPECT_EQ(back.allreduceSeconds, r.allreduceSeconds);
  EXPECT_EQ(decodeFabricResult(encodeFabricResult({}), "x").node, "");
}

TEST(FabricWire, ShortOrLongResultsNameTheSender) {
  FabricRankResult r;
  r.probeSeconds = {0.01};
  std::vector<double> values = encodeFabricResult(r);
  values.pop_back();
  EXPECT_THAT(errorOf([&] { decodeFabricResult(values, "trainer3 (rank 4)"); }),
              HasSubstr("trainer3 (rank 4) sent fabric results the master cannot read"));
  values = encodeFabricResult(r);
  values.push_back(1);
  EXPECT_THAT(errorOf([&] { decodeFabricResult(values, "trainer3 (rank 4)"); }),
              HasSubstr("1 values left over"));
  EXPECT_THAT(errorOf([&] { decodeFabricResult({-1}, "trainer0 (rank 1)"); }),
              HasSubstr("the node name's length is -1"));
}

FabricAssembly threeNodes() {
  FabricAssembly how;
  how.labels = {"trainer0", "trainer1", "trainer2"};
  how.ranks = {1, 2, 3};
  how.probeFlop = 2e6;
  how.allreduceBytes = 1024;
  return how;
}

TEST(FabricWire, AssemblyPutsEachDirectionOfEachPairAndSizeOnce) {
  // Round 0: 0-1 (2 rests); round 1: 0-2; round 2: 1-2. Sizes 8 and 64.
  std::vector<FabricRankResult> t(3);
  for (int r = 0; r < 3; ++r) {
    t[r].node = "n" + std::to_string(r);
    t[r].probeSeconds = {0.1 * (r + 1)};
    t[r].allreduceSeconds = {0.25 + r * 0.125, 1.0 - r * 0.125};
  }
  auto add = [&](int receiver, int round, int sender) {
    for (int64_t bytes : {8, 64}) {
      t[receiver].received.push_back(
          {round, sender, bytes, {receiver * 10.0 + sender + bytes / 1000.0}});
    }
  };
  add(0, 0, 1), add(1, 0, 0), add(0, 1, 2), add(2, 1, 0), add(1, 2, 2), add(2, 2, 1);
  const report::FabricMeasurements m = assembleFabric(t, threeNodes());
  ASSERT_EQ(m.nodes.size(), 3u);
  EXPECT_EQ(m.nodes[2].name, "trainer2");
  EXPECT_EQ(m.nodes[2].rank, 3);
  EXPECT_EQ(m.nodes[2].node, "n2");
  EXPECT_EQ(m.probeSeconds[1], std::vector<double>{0.2});
  EXPECT_DOUBLE_EQ(m.probeFlop, 2e6);
  ASSERT_EQ(m.pairs.size(), 6u);                    // 3 pairs x 2 sizes
  const report::FabricPairSamples& p = m.pairs[2];  // round 1: 0-2, 8 bytes
  EXPECT_EQ(p.round, 1);
  EXPECT_EQ(p.a, 0);
  EXPECT_EQ(p.b, 2);
  EXPECT_EQ(p.bytes, 8);
  EXPECT_EQ(p.aToB, std::vector<double>{20.008});  // what 2 received from 0
  EXPECT_EQ(p.bToA, std::vector<double>{2.008});   // what 0 received from 2
  // The allreduce as its slowest trainer saw each iteration.
  EXPECT_EQ(m.allreduceSeconds, (std::vector<double>{0.5, 1.0}));
  EXPECT_EQ(m.allreduceBytes, 1024);
}

TEST(FabricWire, AssemblyRefusesAOneSidedPairNamingTheSilentTrainer) {
  std::vector<FabricRankResult> t(3);
  t[1].received.push_back({0, 0, 8, {0.1}});
  EXPECT_THAT(errorOf([&] { assembleFabric(t, threeNodes()); }),
              HasSubstr("trainer0 reported no transfers of 8 bytes from trainer1"));
  t[0].received.push_back({0, 1, 8, {0.1}});
  t[0].received.push_back({0, 1, 8, {0.1}});
  EXPECT_THAT(errorOf([&] { assembleFabric(t, threeNodes()); }),
              HasSubstr("trainer0 reported the transfers of 8 bytes from trainer1 twice"));
  std::vector<FabricRankResult> u(3);
  u[0].received.push_back({0, 0, 8, {0.1}});
  EXPECT_THAT(errorOf([&] { assembleFabric(u, threeNodes()); }),
              HasSubstr("trainer0 received from trainer index 0"));
  std::vector<FabricRankResult> v(3);
  v[0].allreduceSeconds = {0.1};
  EXPECT_THAT(errorOf([&] { assembleFabric(v, threeNodes()); }),
              HasSubstr("trainer1 timed 0 allreduce iterations, trainer0 1"));
}

}  // namespace
}  // namespace distbench::worker
