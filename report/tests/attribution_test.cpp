// Attribution on synthetic reports shaped as the worker and `distbench run`
// write them (testing/include/distbench/testing/report/attribution_test_reports.h): the bound and
// shares, the straggler and its excess, the slow link from `local`'s
// counters, the what-if, and that absent figures degrade to saying so.
#include "distbench/report/attribution.h"

#include <cpprest/json.h>
#include <gtest/gtest.h>

#include "distbench/testing/report/attribution_test_reports.h"

namespace distbench::report {
namespace {

using testing::collectivesAttributionReport;
using testing::ddpAttributionReport;
using testing::hybridAttributionReport;
using testing::localJson;
using testing::LocalRankLink;
using testing::RankTiming;
using testing::TrainerTiming;
using web::json::value;

const RowAttribution& rowNamed(const Attribution& a, const std::string& row) {
  for (const RowAttribution& r : a.rows)
    if (r.row == row) return r;
  throw std::runtime_error("no row " + row);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Four ranks in step: each waits in allreduce until the slowest is done.
std::vector<RankTiming> inStep(std::vector<double> compute) {
  double slowest = 0;
  for (double c : compute) slowest = std::max(slowest, c);
  std::vector<RankTiming> ranks;
  for (size_t i = 0; i < compute.size(); ++i) {
    ranks.push_back({static_cast<int>(i + 1), compute[i], slowest + 0.01 - compute[i]});
  }
  return ranks;
}

TEST(Attribution, DdpRankWithTwiceTheComputeIsTheStragglerWithItsExcess) {
  const Attribution a = attribute(ddpAttributionReport(inStep({0.1, 0.1, 0.2, 0.1})));
  const RowAttribution& row = rowNamed(a, "1M/4R");
  ASSERT_TRUE(row.straggler.has_value());
  EXPECT_EQ(row.straggler->rank, 3);
  EXPECT_EQ(row.straggler->name, "trainer2");
  EXPECT_NEAR(row.straggler->excessSeconds, 0.1, 1e-9);
  EXPECT_TRUE(contains(row.straggler->evidence, "2.00x")) << row.straggler->evidence;
  EXPECT_FALSE(row.link.has_value());
  // Every rank's iteration is 0.21 s; without the excess it would be 0.11 s.
  EXPECT_NEAR(row.stepSeconds, 0.21, 1e-9);
  ASSERT_TRUE(row.whatIfSeconds.has_value());
  EXPECT_NEAR(*row.whatIfSeconds, 0.11, 1e-9);
  EXPECT_EQ(row.whatIf, "if trainer2 computed as fast as the others");
  // Three ranks wait 0.11 s and one 0.01 s: 0.085 s of 0.21 s exposed.
  EXPECT_EQ(row.bound, "communication");
  EXPECT_NEAR(row.shares.at("allreduceWait"), 0.085 / 0.21, 1e-9);
  EXPECT_TRUE(contains(a.summary, "1M/4R")) << a.summary;
  EXPECT_TRUE(contains(a.summary, "straggler trainer2 (+")) << a.summary;
  EXPECT_TRUE(contains(a.summary, " per iteration)")) << a.summary;
  EXPECT_TRUE(contains(a.summary, "0.110 s instead of 0.210 s")) << a.summary;
}

TEST(Attribution, AStragglerMustAlsoWaitTheLeast) {
  // More compute but also the longest wait: someone else holds it back.
  std::vector<RankTiming> ranks = inStep({0.1, 0.1, 0.2, 0.1});
  ranks[2].wait = 0.5;
  EXPECT_FALSE(rowNamed(attribute(ddpAttributionReport(ranks)), "1M/4R").straggler);
}

TEST(Attribution, ComputeWithinTenPercentOfTheOthersIsNoStraggler) {
  const Attribution a = attribute(ddpAttributionReport(inStep({0.1, 0.1, 0.109, 0.1})));
  EXPECT_FALSE(rowNamed(a, "1M/4R").straggler);
  EXPECT_FALSE(rowNamed(a, "1M/4R").whatIfSeconds);
}

TEST(Attribution, AnExcessUnderAFiftiethOfTheStepIsNoStraggler) {
  // 1.5x the others' compute, but compute is a sliver of a 1 s step: the
  // 0.005 s excess is 0.5 % of it (the rule asks for 5 %).
  std::vector<RankTiming> ranks = inStep({0.01, 0.01, 0.015, 0.01});
  for (RankTiming& r : ranks) r.wait += 1.0;
  EXPECT_FALSE(rowNamed(attribute(ddpAttributionReport(ranks)), "1M/4R").straggler);
  // The same ratio where compute is the step is named.
  EXPECT_TRUE(rowNamed(attribute(ddpAttributionReport(inStep({0.1, 0.1, 0.15, 0.1}))), "1M/4R")
                  .straggler);
}

TEST(Attribution, HybridTrainerSlightlySlowerInATinyComputeIsNoStraggler) {
  // As measured on a link-bound run: one trainer's compute 1.15x the
  // other's, 65 us a batch of a 35 ms batch that is nearly all push.
  TrainerTiming fast, slow;
  fast.forward = 0.0001;
  fast.backward = 0.0003;
  fast.optimizerStep = 0.00002;
  fast.push = 0.03;
  slow = fast;
  slow.backward += 0.000065;
  slow.allreduceWait = 0.004;
  fast.allreduceWait = 0.004 + 0.000065;
  EXPECT_FALSE(rowNamed(attribute(hybridAttributionReport({fast, slow})), "All").straggler);
}

TEST(Attribution, RanksSharingCoresMustDifferMoreToBeAStraggler) {
  // 1.3x the others' compute: a straggler on a host with a core per rank,
  // scheduling noise where 5 CPU ranks share 2 cores, a straggler again on
  // GPUs, whatever the host's cores.
  Report report = ddpAttributionReport(inStep({0.1, 0.1, 0.13, 0.1}));
  report.host.logicalCpus = 16;
  EXPECT_TRUE(rowNamed(attribute(report), "1M/4R").straggler);
  report.host.logicalCpus = 2;
  EXPECT_FALSE(rowNamed(attribute(report), "1M/4R").straggler);
  report.device = "cuda";
  EXPECT_TRUE(rowNamed(attribute(report), "1M/4R").straggler);
  // Sharing cores, 2x is still named.
  Report capped = ddpAttributionReport(inStep({0.1, 0.1, 0.2, 0.1}));
  capped.host.logicalCpus = 2;
  EXPECT_TRUE(rowNamed(attribute(capped), "1M/4R").straggler);
}

TEST(Attribution, OneSlowIterationMakesNoStraggler) {
  Report report = ddpAttributionReport(inStep({0.1, 0.1, 0.1, 0.1}));
  value results = value::parse(report.resultsJson);
  // One iteration of ten took a second more: the mean moves, the p50 not.
  results["models"][0]["rows"][1]["perRank"][2]["phases"]["forward"]["mean"] =
      value::number(0.03 + 0.1);
  report.resultsJson = results.serialize();
  EXPECT_FALSE(rowNamed(attribute(report), "1M/4R").straggler);
}

TEST(Attribution, UniformUnshapedDdpNamesNoStragglerAndNoLink) {
  Report report = ddpAttributionReport(inStep({0.1, 0.1, 0.1, 0.1}));
  report.localJson = localJson({{0, "master", std::nullopt, 0},
                                {1, "trainer0", std::nullopt, 0},
                                {2, "trainer1", std::nullopt, 0}},
                               "");
  const Attribution a = attribute(report);
  for (const RowAttribution& row : a.rows) {
    SCOPED_TRACE(row.row);
    EXPECT_FALSE(row.straggler);
    EXPECT_FALSE(row.link);
    EXPECT_FALSE(row.whatIfSeconds);
    EXPECT_TRUE(row.whatIf.empty());
  }
  // 0.01 s of 0.11 s waiting: between the two thresholds.
  EXPECT_EQ(rowNamed(a, "1M/4R").bound, "mixed");
  EXPECT_EQ(rowNamed(a, "no ddp").bound, "compute");
  EXPECT_TRUE(contains(a.summary, "no straggler, no slow link")) << a.summary;
}

TEST(Attribution, SharesOfTheMeanStepAddUpToOne) {
  const RowAttribution row =
      rowNamed(attribute(ddpAttributionReport(inStep({0.1, 0.1, 0.1, 0.1}))), "1M/4R");
  double sum = 0;
  for (const auto& [phase, share] : row.shares) sum += share;
  EXPECT_NEAR(sum, 1.0, 1e-9);
  EXPECT_NEAR(row.shares.at("backward"), 0.06 / 0.11, 1e-9);
  EXPECT_NEAR(row.shares.at("other"), 0.0, 1e-9);
}

TEST(Attribution, DdpWithoutPerRankBindsFromPooledPhasesAndSearchesNoStraggler) {
  const Attribution a =
      attribute(ddpAttributionReport(inStep({0.1, 0.1, 0.2, 0.1}), /*perRank=*/false));
  const RowAttribution& row = rowNamed(a, "1M/4R");
  EXPECT_EQ(row.bound, "communication");
  EXPECT_FALSE(row.straggler);
  EXPECT_TRUE(contains(row.note, "perRank")) << row.note;
}

// Rank 2's link at a tenth of the others': 15 MB a step each way at 100
// Mbit/s is 1.2 s, at 1 Gbit/s 0.12 s.
Report slowLinkDdp(double gradientBytes) {
  Report report = ddpAttributionReport({{1, 0.1, 1.2}, {2, 0.1, 1.2}, {3, 0.1, 1.2}, {4, 0.1, 1.2}},
                                       true, gradientBytes);
  const double bytes = 15e6 * 12;  // 10 measured + 2 warm-up iterations
  report.localJson = localJson({{0, "master", 1e9, 1e4},
                                {1, "trainer0", 1e9, bytes},
                                {2, "trainer1", 1e8, bytes},
                                {3, "trainer2", 1e9, bytes},
                                {4, "trainer3", 1e9, bytes}},
                               "bandwidth=1gbit;rank2=100mbit");
  return report;
}

TEST(Attribution, ALinkAtATenthOfTheOthersRateIsNamedWithItsWhatIf) {
  const Attribution a = attribute(slowLinkDdp(10e6));
  const RowAttribution& row = rowNamed(a, "1M/4R");
  ASSERT_TRUE(row.link.has_value());
  EXPECT_EQ(row.link->rank, 2);
  EXPECT_EQ(row.link->name, "trainer1");
  EXPECT_DOUBLE_EQ(row.link->bitsPerSecond, 1e8);
  EXPECT_DOUBLE_EQ(row.link->othersBitsPerSecond, 1e9);
  EXPECT_TRUE(contains(row.link->evidence, "10.0x the next link's time")) << row.link->evidence;
  EXPECT_FALSE(row.straggler);
  // 2(p-1)/p x 10 MB = 15 MB a step: 1.2 s at 100mbit, 0.12 s at 1gbit.
  ASSERT_TRUE(row.whatIfSeconds.has_value());
  EXPECT_NEAR(*row.whatIfSeconds, 1.3 - (1.2 - 0.12), 1e-9);
  EXPECT_EQ(row.whatIf, "if trainer1's link ran as fast as the others");
  // The single-rank rows use no link.
  EXPECT_FALSE(rowNamed(a, "no ddp").link);
  EXPECT_TRUE(contains(a.summary, "slow link trainer1 (100mbit vs 1gbit)")) << a.summary;
}

TEST(Attribution, WithoutByteCountsTheLinksShareOfTheRunStandsIn) {
  // Its traffic takes 14.4 s of a 14 s measured run: the whole step is its
  // share, and all the exposed wait (1.2 s) but the others' rate's 0.13 s
  // would go.
  const RowAttribution row = rowNamed(attribute(slowLinkDdp(0)), "1M/4R");
  ASSERT_TRUE(row.link.has_value());
  ASSERT_TRUE(row.whatIfSeconds.has_value());
  EXPECT_NEAR(*row.whatIfSeconds, 1.3 - std::min(1.2, 1.3 - 0.13), 1e-9);
}

TEST(Attribution, UniformShapingNamesNoLink) {
  Report report = slowLinkDdp(10e6);
  report.localJson = localJson({{0, "master", 1e9, 1e4},
                                {1, "trainer0", 1e9, 18e7},
                                {2, "trainer1", 1e9, 18e7},
                                {3, "trainer2", 1e9, 18e7},
                                {4, "trainer3", 1e9, 18e7}},
                               "bandwidth=1gbit");
  for (const RowAttribution& row : attribute(report).rows) EXPECT_FALSE(row.link) << row.row;
}

TEST(Attribution, ASlowLinkThatCarriesLittleOfTheRunIsNotNamed) {
  Report report = slowLinkDdp(10e6);
  // 1 MB at 100mbit: 0.08 s of a 14 s run.
  report.localJson = localJson({{1, "trainer0", 1e9, 1e6},
                                {2, "trainer1", 1e8, 1e6},
                                {3, "trainer2", 1e9, 1e6},
                                {4, "trainer3", 1e9, 1e6}},
                               "bandwidth=1gbit;rank2=100mbit");
  EXPECT_FALSE(rowNamed(attribute(report), "1M/4R").link);
}

TEST(Attribution, StragglerEvidenceSaysItsCpuCap) {
  Report report = ddpAttributionReport(inStep({0.1, 0.2}));
  report.localJson =
      localJson({{1, "trainer0", std::nullopt, 0}, {2, "trainer1", std::nullopt, 0, 0.5}}, "",
                "rank2=cpu:50%");
  const RowAttribution row = rowNamed(attribute(report), "1M/2R");
  ASSERT_TRUE(row.straggler.has_value());
  EXPECT_EQ(row.straggler->name, "trainer1");
  // Two ranks: the excess is over the other one, not over the pair's median.
  EXPECT_NEAR(row.straggler->excessSeconds, 0.1, 1e-9);
  EXPECT_TRUE(contains(row.straggler->evidence, "CPU capped at 50%, throttled 1.50 s"))
      << row.straggler->evidence;
}

TEST(Attribution, HybridTrainerWithTwiceTheComputeIsTheStragglerPerEpoch) {
  TrainerTiming fast, slow;
  fast.allreduceWait = 0.031;
  slow.forward = 0.02;
  slow.backward = 0.04;
  slow.optimizerStep = 0.002;
  slow.allreduceWait = 0;
  const Attribution a = attribute(hybridAttributionReport({fast, slow, fast}));
  ASSERT_EQ(a.rows.size(), 4u);  // Trainer0..2, All
  const RowAttribution& all = rowNamed(a, "All");
  EXPECT_EQ(all.sampleOf, "epoch");
  ASSERT_TRUE(all.straggler.has_value());
  EXPECT_EQ(all.straggler->rank, 3);  // master 0, ps0 1, trainer0 2
  EXPECT_EQ(all.straggler->name, "trainer1");
  // 0.031 s more compute per batch, 10 batches an epoch.
  EXPECT_NEAR(all.straggler->excessSeconds, 0.31, 1e-9);
  EXPECT_NEAR(all.stepSeconds, 0.67, 1e-9);
  ASSERT_TRUE(all.whatIfSeconds.has_value());
  EXPECT_NEAR(*all.whatIfSeconds, 0.36, 1e-9);
  for (const char* trainer : {"Trainer0", "Trainer1", "Trainer2"}) {
    EXPECT_FALSE(rowNamed(a, trainer).straggler) << trainer;
    EXPECT_FALSE(rowNamed(a, trainer).bound.empty());
  }
  // Trainer1 waits for nobody: lookup + push 0.005 of 0.067 s.
  EXPECT_EQ(rowNamed(a, "Trainer1").bound, "mixed");
  EXPECT_EQ(rowNamed(a, "Trainer0").bound, "communication");
}

TEST(Attribution, UniformHybridNamesNoStragglerAndNoLink) {
  TrainerTiming t;
  t.bytesPerStep = 2e5;
  const Attribution a = attribute(hybridAttributionReport({t, t, t}));
  for (const RowAttribution& row : a.rows) {
    EXPECT_FALSE(row.straggler) << row.row;
    EXPECT_FALSE(row.link) << row.row;
  }
  EXPECT_TRUE(contains(a.summary, "HybridDDPRPC All:")) << a.summary;
}

TEST(Attribution, HybridTrainerSlowPerByteNamesItsLinkWithoutCounters) {
  TrainerTiming fast, slow;
  fast.bytesPerStep = slow.bytesPerStep = 2e5;
  slow.lookup = 0.02;
  slow.push = 0.03;
  // Its peers wait for it in the dense allreduce instead.
  fast.allreduceWait = 0.05;
  slow.allreduceWait = 0.005;
  const Attribution a = attribute(hybridAttributionReport({fast, fast, slow}));
  const RowAttribution& all = rowNamed(a, "All");
  ASSERT_TRUE(all.link.has_value());
  EXPECT_EQ(all.link->name, "trainer2");
  EXPECT_EQ(all.link->rank, 4);
  EXPECT_NEAR(all.link->bitsPerSecond, 2e5 * 8 / 0.05, 1e-6);
  EXPECT_NEAR(all.link->othersBitsPerSecond, 2e5 * 8 / 0.005, 1e-6);
  EXPECT_TRUE(contains(all.link->evidence, "10.0x")) << all.link->evidence;
  EXPECT_FALSE(all.straggler);
  // 0.045 s of lookup + push per batch would go, 10 batches an epoch.
  ASSERT_TRUE(all.whatIfSeconds.has_value());
  EXPECT_NEAR(*all.whatIfSeconds, all.stepSeconds - 0.45, 1e-9);
}

TEST(Attribution, WithoutCountersTrainersTwiceAsSlowPerByteNameNoLink) {
  // What two identical trainers on two loaded cores look like: 2x apart per
  // byte. Only counters (a `local` block) could tell a link from noise here.
  TrainerTiming fast, slow;
  fast.bytesPerStep = slow.bytesPerStep = 2e5;
  slow.lookup = 0.004;
  slow.push = 0.006;
  fast.allreduceWait = 0.01;
  slow.allreduceWait = 0.005;
  EXPECT_FALSE(rowNamed(attribute(hybridAttributionReport({fast, slow})), "All").link);
}

TEST(Attribution, HybridLinkFromLocalCounters) {
  TrainerTiming t;
  t.lookup = 0.02;
  t.push = 0.03;
  Report report = hybridAttributionReport({t, t});
  // Measured: 10 epochs of 0.86 s = 8.6 s. Trainer1's 40 MB at 1e8: 3.2 s.
  report.localJson =
      localJson({{1, "ps0", 1e9, 80e6}, {2, "trainer0", 1e9, 40e6}, {3, "trainer1", 1e8, 40e6}},
                "bandwidth=1gbit;rank3=100mbit");
  const RowAttribution all = rowNamed(attribute(report), "All");
  ASSERT_TRUE(all.link.has_value());
  EXPECT_EQ(all.link->name, "trainer1");
  ASSERT_TRUE(all.whatIfSeconds.has_value());
  EXPECT_LT(*all.whatIfSeconds, all.stepSeconds);
}

TEST(Attribution, CollectivesAreCommunicationByDefinition) {
  const Attribution a = attribute(collectivesAttributionReport());
  ASSERT_EQ(a.rows.size(), 2u);
  for (const RowAttribution& row : a.rows) {
    EXPECT_EQ(row.bound, "communication");
    EXPECT_TRUE(row.shares.empty());
    EXPECT_TRUE(contains(row.note, "by definition")) << row.note;
    EXPECT_FALSE(row.straggler);
    EXPECT_FALSE(row.whatIfSeconds);
  }
  EXPECT_EQ(a.summary, "Collectives: communication-bound by definition");
}

TEST(Attribution, ReportWithoutPhasesSaysTheBoundIsUnknown) {
  Report report = ddpAttributionReport(inStep({0.1, 0.1}));
  report.resultsJson =
      R"({"models":[{"rows":[{"row":"no ddp","series":0},{"row":"1M/2R","series":1}]}]})";
  const Attribution a = attribute(report);
  ASSERT_EQ(a.rows.size(), 2u);
  EXPECT_EQ(a.rows[1].bound, "unknown");
  EXPECT_TRUE(contains(a.summary, "bound unknown")) << a.summary;
}

TEST(Attribution, JsonHasTheContractsFields) {
  const Attribution a = attribute(ddpAttributionReport(inStep({0.1, 0.1, 0.2, 0.1})));
  const value json = value::parse(attributionToJson(a));
  EXPECT_EQ(json.at("summary").as_string(), a.summary);
  ASSERT_EQ(json.at("rows").size(), 2u);
  const value& noDdp = json.at("rows").at(0);
  EXPECT_TRUE(noDdp.at("straggler").is_null());
  EXPECT_TRUE(noDdp.at("link").is_null());
  EXPECT_TRUE(noDdp.at("whatIfSeconds").is_null());
  const value& row = json.at("rows").at(1);
  EXPECT_EQ(row.at("group").as_string(), "smallcnn with batch size 4");
  EXPECT_EQ(row.at("row").as_string(), "1M/4R");
  EXPECT_EQ(row.at("bound").as_string(), "communication");
  EXPECT_NEAR(row.at("stepSeconds").as_double(), 0.21, 1e-9);
  EXPECT_TRUE(row.at("shares").has_field("allreduceWait"));
  EXPECT_EQ(row.at("straggler").at("rank").as_integer(), 3);
  EXPECT_EQ(row.at("straggler").at("name").as_string(), "trainer2");
  EXPECT_NEAR(row.at("straggler").at("excessSeconds").as_double(), 0.1, 1e-9);
  EXPECT_NEAR(row.at("whatIfSeconds").as_double(), 0.11, 1e-9);
  EXPECT_EQ(row.at("whatIf").as_string(), "if trainer2 computed as fast as the others");
}

TEST(Attribution, FooterHasALinePerRowAndEndsWithTheSummary) {
  const Attribution a = attribute(slowLinkDdp(10e6));
  const std::string footer = formatAttributionFooter(a);
  EXPECT_TRUE(contains(footer, "  smallcnn with batch size 4 no ddp: compute-bound;")) << footer;
  EXPECT_TRUE(contains(footer, "  smallcnn with batch size 4 1M/4R: communication-bound;"))
      << footer;
  EXPECT_TRUE(contains(footer, "    slow link trainer1 (100mbit vs 1gbit): link counters:"))
      << footer;
  EXPECT_TRUE(contains(footer, "    what if: if trainer1's link ran as fast as the others: "))
      << footer;
  EXPECT_EQ(footer.substr(footer.rfind("Bottleneck: ")), "Bottleneck: " + a.summary + "\n");
}

TEST(Attribution, SummaryFitsItsBound) {
  Report report = ddpAttributionReport(inStep({0.1, 0.2}));
  report.series[1].group = std::string(400, 'g');
  EXPECT_LE(attribute(report).summary.size(), kSummaryLimit);
}

TEST(Attribution, ResultsThatAreNotJsonAreAReportError) {
  Report report = ddpAttributionReport(inStep({0.1, 0.1}));
  report.resultsJson = "{";
  EXPECT_THROW(attribute(report), ReportError);
}

}  // namespace
}  // namespace distbench::report
