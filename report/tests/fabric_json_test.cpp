#include <gtest/gtest.h>

#include <string>

#include "distbench/report/fabric.h"
#include "distbench/report/report.h"

namespace distbench::report {
namespace {

FabricMeasurements makeMeasurements() {
  FabricMeasurements m;
  m.nodes = {{0, "trainer0", "node-a", "rack1"},
             {1, "trainer1", "node-b", "rack1"},
             {2, "trainer2", "node-c", ""}};
  m.probeFlop = 2.0 * 512 * 512 * 512;
  m.probeDevice = "cuda";
  // Values that need all 17 digits to survive a round trip.
  m.probeSeconds = {{0.1, 0.30000000000000004}, {0.25}, {}};
  m.pairs.push_back({0, 1, 1 << 20, {1e-3, 1.1e-3}, {0.5}, 0});
  m.pairs.push_back({0, 2, 1 << 20, {2e-3}, {2.5e-3, 2.25e-3}, 1});
  m.pairs.push_back({0, 2, 8, {1e-6}, {1.5e-6}, 1});
  m.allreduceBytes = 1 << 22;
  m.allreduceSeconds = {0.01, 0.011};
  return m;
}

std::string results(const FabricMeasurements& m) { return "{\"fabric\":" + fabricToJson(m) + "}"; }

TEST(FabricJson, RoundTripsEveryField) {
  const FabricMeasurements m = makeMeasurements();
  const FabricMeasurements back = parseFabric(results(m));
  ASSERT_EQ(back.nodes.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(back.nodes[i].rank, m.nodes[i].rank);
    EXPECT_EQ(back.nodes[i].name, m.nodes[i].name);
    EXPECT_EQ(back.nodes[i].node, m.nodes[i].node);
    EXPECT_EQ(back.nodes[i].group, m.nodes[i].group);
  }
  EXPECT_EQ(back.probeFlop, m.probeFlop);
  EXPECT_EQ(back.probeDevice, "cuda");
  EXPECT_EQ(back.probeSeconds, m.probeSeconds);
  ASSERT_EQ(back.pairs.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(back.pairs[i].a, m.pairs[i].a);
    EXPECT_EQ(back.pairs[i].b, m.pairs[i].b);
    EXPECT_EQ(back.pairs[i].bytes, m.pairs[i].bytes);
    EXPECT_EQ(back.pairs[i].round, m.pairs[i].round);
    EXPECT_EQ(back.pairs[i].aToB, m.pairs[i].aToB);
    EXPECT_EQ(back.pairs[i].bToA, m.pairs[i].bToA);
  }
  EXPECT_EQ(back.allreduceBytes, m.allreduceBytes);
  EXPECT_EQ(back.allreduceSeconds, m.allreduceSeconds);
}

TEST(FabricJson, ProbeSecondsMissingForANodeIsWrittenEmpty) {
  FabricMeasurements m = makeMeasurements();
  m.probeSeconds.resize(1);
  const FabricMeasurements back = parseFabric(results(m));
  ASSERT_EQ(back.probeSeconds.size(), 3u);
  EXPECT_TRUE(back.probeSeconds[1].empty());
  EXPECT_TRUE(back.probeSeconds[2].empty());
}

// Replaces the first `from` in the measurements' JSON with `to`, and
// expects parseFabric to refuse it with a message holding `field` and `why`.
void expectRefused(const std::string& from, const std::string& to, const std::string& field,
                   const std::string& why) {
  std::string text = results(makeMeasurements());
  const size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from << " in " << text;
  text.replace(at, from.size(), to);
  try {
    parseFabric(text, "run.json");
    FAIL() << "accepted " << text;
  } catch (const ReportError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("run.json: " + field), std::string::npos) << message;
    EXPECT_NE(message.find(why), std::string::npos) << message;
  }
}

TEST(FabricJson, RefusalsNameTheField) {
  expectRefused("\"aToB\":[0.001,", "\"aToB\":[\"x\",", "results.fabric.pairs[0].aToB",
                "must be a list of numbers");
  expectRefused("\"aToB\":[0.001,", "\"aToB\":[-0.001,", "results.fabric.pairs[0].aToB[0]",
                "must be between");
  expectRefused("\"aToB\":[0.001,", "\"aToB\":[0,", "results.fabric.pairs[0].aToB[0]",
                "must be between");
  expectRefused("\"aToB\":[0.001,", "\"aToB\":[1e999,", "results.fabric.pairs[0].aToB[0]",
                "finite");
  expectRefused("\"aToB\":[0.001,", "\"aToB\":[2e7,", "results.fabric.pairs[0].aToB[0]",
                "must be between");
  expectRefused("\"bToA\":[0.5]", "\"bToA\":[]", "results.fabric.pairs[0].bToA",
                "must not be empty");
  expectRefused("\"a\":0,\"b\":1", "\"a\":0,\"b\":3", "results.fabric.pairs[0].b",
                "must be between 0 and 2");
  expectRefused("\"a\":0,\"b\":1", "\"a\":1,\"b\":1", "results.fabric.pairs[0]",
                "must be less than b");
  expectRefused("\"a\":0,\"b\":2,\"bytes\":8", "\"a\":0,\"b\":2,\"bytes\":1048576",
                "results.fabric.pairs[2]", "given twice");
  expectRefused("\"bytes\":1048576", "\"bytes\":0", "results.fabric.pairs[0].bytes",
                "must be between 1");
  expectRefused("\"probeSeconds\":[0.25]", "\"probeSeconds\":[0.25,null]",
                "results.fabric.nodes[1].probeSeconds", "must be a list of numbers");
  expectRefused("\"name\":\"trainer2\",", "", "results.fabric.nodes[2].name", "missing");
  expectRefused("\"device\":\"cuda\"", "\"device\":\"tpu\"", "results.fabric.probe.device",
                "must be \"cpu\" or \"cuda\"");
  expectRefused("\"flop\":", "\"flop\":-1,\"x\":", "results.fabric.probe.flop", "must be between");
  expectRefused("\"seconds\":[0.01,", "\"seconds\":[-0.01,", "results.fabric.allreduce.seconds[0]",
                "must be between");
  expectRefused("{\"fabric\":", "{\"fabric\":3,\"x\":", "results.fabric", "must be an object");
}

TEST(FabricJson, RefusesNoFabricAndNoNodes) {
  EXPECT_THROW(parseFabric("{}"), ReportError);
  EXPECT_THROW(parseFabric("not json"), ReportError);
  FabricMeasurements none;
  try {
    parseFabric(results(none));
    FAIL();
  } catch (const ReportError& error) {
    EXPECT_NE(std::string(error.what()).find("results.fabric.nodes: must hold between 1 and"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace distbench::report
