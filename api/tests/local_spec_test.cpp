// spec.local: what `distbench run` emulates on one machine, in YAML. The
// block must say everything --links and --slow say, refuse what they refuse
// for the same reason, name the field of every error, and survive toYaml
// and toJson unchanged.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>

#include "distbench/api/local_spec.h"
#include "distbench/api/renderer.h"
#include "test_util.h"

namespace distbench::api {
namespace {

using test::document;
using test::parseErrors;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// 1 master + 1 ps + 2 trainers: ranks 0 to 3.
std::string withLocal(const std::string& local) {
  return document(
      "spec:\n"
      "  topology: {trainers: 2, parameterServers: 1}\n"
      "  local:\n" +
      local);
}

TEST(LocalSpec, ParsesLinksAndSlowAsWritten) {
  DistBenchmark b = parseDistBenchmark(withLocal(
      "    links:\n"
      "      bandwidth: 1gbit\n"
      "      ranks: {rank3: 100mbit, ps0: 500000}\n"
      "    slow:\n"
      "      trainer0: {cpu: 50%}\n"
      "      master: {cpu: \"0.25\"}\n"));
  ASSERT_TRUE(b.spec.local);
  ASSERT_TRUE(b.spec.local->links);
  EXPECT_EQ(b.spec.local->links->bandwidth, "1gbit");
  EXPECT_EQ(b.spec.local->links->ranks,
            (std::map<std::string, std::string>{{"rank3", "100mbit"}, {"ps0", "500000"}}));
  ASSERT_EQ(b.spec.local->slow.size(), 2u);
  EXPECT_EQ(b.spec.local->slow.at("trainer0").cpu, "50%");
  EXPECT_EQ(b.spec.local->slow.at("master").cpu, "0.25");
}

TEST(LocalSpec, AbsentMeansNothingIsEmulated) {
  EXPECT_FALSE(parseDistBenchmark(test::kMinimal).spec.local);
  DistBenchmark cpuOnly = parseDistBenchmark(withLocal("    slow: {rank1: {cpu: 10%}}\n"));
  ASSERT_TRUE(cpuOnly.spec.local);
  EXPECT_FALSE(cpuOnly.spec.local->links);
}

TEST(LocalSpec, RoundTripsThroughYamlAndJson) {
  DistBenchmark b = test::minimalBenchmark();
  b.spec.local = LocalSpec{};
  b.spec.local->links = LocalLinks{std::string("1gbit"),
                                   {{"trainer1", "10mbit"}, {"rank0", "1e9"}},
                                   {{"trainer1-master", "50mbit"}}};
  b.spec.local->slow = {{"rank4", {"50%"}}, {"ps1", {"1"}}};
  EXPECT_EQ(parseDistBenchmark(toYaml(b)), b) << toYaml(b);
  EXPECT_EQ(parseDistBenchmark(toJson(b)), b) << toJson(b);
  EXPECT_THAT(toYaml(b), HasSubstr("local:\n    links:\n      bandwidth: 1gbit\n"));

  // Only the parts that are set are written, so each reads back as it was.
  b.spec.local->links = LocalLinks{};
  b.spec.local->links->ranks = {{"rank1", "5mbit"}};
  b.spec.local->slow.clear();
  EXPECT_EQ(parseDistBenchmark(toYaml(b)), b) << toYaml(b);
  b.spec.local = LocalSpec{};
  EXPECT_EQ(parseDistBenchmark(toJson(b)), b) << toJson(b);
}

TEST(LocalSpec, LatencyIsRefusedWithTheFlagsReason) {
  for (const char* word : {"latency", "delay", "loss", "jitter"}) {
    std::vector<std::string> errors =
        parseErrors(withLocal("    links: {bandwidth: 1gbit, " + std::string(word) + ": 10ms}\n"));
    ASSERT_EQ(errors.size(), 1u) << word;
    EXPECT_EQ(errors[0], "spec.local.links." + std::string(word) + ": " + kNoLatencyReason);
    EXPECT_THAT(errors[0], HasSubstr("netem"));
  }
}

TEST(LocalSpec, UnknownRanksNameTheFieldAndTheTopology) {
  EXPECT_THAT(parseErrors(withLocal("    links: {ranks: {rank9: 1gbit}}\n")),
              ElementsAre("spec.local.links.ranks.rank9: no rank 9: the topology has 4 ranks "
                          "(0 to 3)"));
  EXPECT_THAT(parseErrors(withLocal("    slow: {trainer7: {cpu: 50%}}\n")),
              ElementsAre("spec.local.slow.trainer7: no rank 'trainer7' (use rankN or one of: "
                          "master, ps0, trainer0, trainer1)"));
  // rank3 is trainer1: two names for one rank.
  EXPECT_THAT(parseErrors(withLocal("    links: {ranks: {rank3: 1gbit, trainer1: 2gbit}}\n")),
              ElementsAre("spec.local.links.ranks.trainer1: names rank 3, which rank3 names too"));
}

TEST(LocalSpec, BadRatesAndCapsNameTheField) {
  std::vector<std::string> errors = parseErrors(withLocal(
      "    links: {bandwidth: fast, ranks: {rank1: 0mbit}}\n"
      "    slow: {rank2: {cpu: half}, rank3: {cpu: 0%}}\n"));
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_THAT(errors[0], HasSubstr("spec.local.links.bandwidth: rate \"fast\": not a number"));
  EXPECT_THAT(errors[1], HasSubstr("spec.local.links.ranks.rank1: rate \"0mbit\": must be more"));
  EXPECT_EQ(errors[2], "spec.local.slow.rank2.cpu: 'half' is not a number (write 50% or 0.5)");
  EXPECT_EQ(errors[3], "spec.local.slow.rank3.cpu: the cap must be between 1% and 102400% of one CPU");
}

TEST(LocalSpec, ShapeErrorsNameTheField) {
  EXPECT_THAT(
      parseErrors(withLocal("    links: {}\n")),
      ElementsAre(
          "spec.local.links: set bandwidth, ranks, pairs or some of them (or leave links out)"));
  EXPECT_THAT(parseErrors(withLocal("    links: {bandwidth: 1.5}\n")),
              ElementsAre("spec.local.links.bandwidth: must be a string such as \"1gbit\" or an "
                          "integer"));
  EXPECT_THAT(parseErrors(withLocal("    slow: {rank1: {}}\n")),
              ElementsAre("spec.local.slow.rank1.cpu: required"));
  EXPECT_THAT(parseErrors(withLocal("    slow: {rank1: 50%}\n")),
              ElementsAre("spec.local.slow.rank1: must be an object"));
  EXPECT_THAT(parseErrors(withLocal("    slow: {rank1: {memory: 1Gi}}\n")),
              ElementsAre("spec.local.slow.rank1.memory: unknown field",
                          "spec.local.slow.rank1.cpu: required"));
  EXPECT_THAT(parseErrors(withLocal("    shaping: true\n")),
              ElementsAre("spec.local.shaping: unknown field"));
}

TEST(LocalSpec, RankNamesResolveAgainstAnInvalidTopologyNotAtAll) {
  // trainers: 0 is the topology's error; spec.local adds none of its own.
  EXPECT_THAT(parseErrors(document("spec:\n"
                                   "  topology: {trainers: 0}\n"
                                   "  local: {slow: {rank9: {cpu: 50%}}}\n")),
              ElementsAre(HasSubstr("spec.topology.trainers")));
}

TEST(LocalSpec, PairsParseAndRoundTrip) {
  DistBenchmark b = parseDistBenchmark(
      withLocal("    links: {pairs: {trainer0-trainer1: 50mbit, rank0-ps0: 1000000}}\n"));
  ASSERT_TRUE(b.spec.local && b.spec.local->links);
  EXPECT_FALSE(b.spec.local->links->bandwidth);
  EXPECT_EQ(b.spec.local->links->pairs,
            (std::map<std::string, std::string>{{"trainer0-trainer1", "50mbit"},
                                                {"rank0-ps0", "1000000"}}));
  EXPECT_THAT(validate(b), IsEmpty());
  EXPECT_EQ(parseDistBenchmark(toYaml(b)), b) << toYaml(b);
  EXPECT_EQ(parseDistBenchmark(toJson(b)), b) << toJson(b);
  EXPECT_THAT(toYaml(b), HasSubstr("pairs:\n        rank0-ps0: \"1000000\"\n"));
}

TEST(LocalSpec, BadPairsNameTheField) {
  EXPECT_THAT(parseErrors(withLocal("    links: {pairs: {trainer1-rank9: 1gbit}}\n")),
              ElementsAre("spec.local.links.pairs.trainer1-rank9: no rank 9: the topology has 4 "
                          "ranks (0 to 3)"));
  EXPECT_THAT(parseErrors(withLocal("    links: {pairs: {rank3-trainer1: 1gbit}}\n")),
              ElementsAre("spec.local.links.pairs.rank3-trainer1: pairs rank 3 with itself"));
  EXPECT_THAT(parseErrors(withLocal("    links: {pairs: {trainer1: 1gbit}}\n")),
              ElementsAre("spec.local.links.pairs.trainer1: 'trainer1' is not a pair of ranks "
                          "(write trainer1-trainer3)"));
  // The same link, the other way round and by other names.
  EXPECT_THAT(parseErrors(withLocal("    links: {pairs: {rank0-rank3: 1gbit, "
                                    "trainer1-master: 2gbit}}\n")),
              ElementsAre("spec.local.links.pairs.trainer1-master: names the link of ranks 0 and "
                          "3, which rank0-rank3 names too"));
  EXPECT_THAT(parseErrors(withLocal("    links: {pairs: {rank0-rank3: 0mbit}}\n")),
              ElementsAre(HasSubstr("spec.local.links.pairs.rank0-rank3: rate \"0mbit\": must be "
                                    "more")));
}

TEST(LocalSpec, HelpersTheFlagsShare) {
  EXPECT_DOUBLE_EQ(parseCpuCap("50%"), 0.5);
  EXPECT_DOUBLE_EQ(parseCpuCap("0.25"), 0.25);
  EXPECT_DOUBLE_EQ(parseCpuCap("200%"), 2.0);
  EXPECT_THROW(parseCpuCap(""), std::invalid_argument);
  EXPECT_THROW(parseCpuCap("0.001"), std::invalid_argument);
  TopologySpec t;
  t.trainers = 2;
  t.parameterServers = 1;
  const std::vector<std::string> labels = rankLabels(t);
  EXPECT_THAT(labels, ElementsAre("master", "ps0", "trainer0", "trainer1"));
  EXPECT_EQ(resolveRankName("rank2", labels), 2);
  EXPECT_EQ(resolveRankName("Trainer1", labels), 3);
  EXPECT_THROW(resolveRankName("rank4", labels), std::invalid_argument);
  EXPECT_THROW(resolveRankName("rank", labels), std::invalid_argument);
  EXPECT_EQ(resolveRankPair("trainer1-Master", labels), std::make_pair(0, 3));
  EXPECT_EQ(resolveRankPair("rank1-rank2", labels), std::make_pair(1, 2));
  for (const char* bad : {"rank1", "-rank1", "rank1-", "rank1-rank2-rank3", "rank1-rank1"}) {
    EXPECT_THROW(resolveRankPair(bad, labels), std::invalid_argument) << bad;
  }
  EXPECT_TRUE(isLinkDelayOption("latency"));
  EXPECT_FALSE(isLinkDelayOption("bandwidth"));
}

TEST(LocalSpec, RanksNeverSeeTheBlock) {
  DistBenchmark b = parseDistBenchmark(withLocal("    links: {bandwidth: 1gbit}\n"));
  const std::string config = render(b).configYaml;
  EXPECT_THAT(config, ::testing::Not(HasSubstr("local:")));
  b.spec.local.reset();
  EXPECT_EQ(parseDistBenchmark(config).spec, b.spec);
}

TEST(LocalSpec, ValidateSeesABlockBuiltInCode) {
  DistBenchmark b = test::minimalBenchmark();  // 6 ranks
  b.spec.local = LocalSpec{};
  b.spec.local->slow = {{"rank6", {"50%"}}};
  EXPECT_THAT(test::strings(validate(b)),
              ElementsAre("spec.local.slow.rank6: no rank 6: the topology has 6 ranks (0 to 5)"));
  b.spec.local->slow = {{"rank5", {"50%"}}};
  EXPECT_THAT(validate(b), IsEmpty());
}

}  // namespace
}  // namespace distbench::api
