// The straggler test on per-step samples (report/src/straggler_interval.h),
// through attribute() on reports as the worker writes them: a table of
// cases per verdict. Noise alone (the A/A case) names nobody; a rank slowed
// in any phase is named in DDP and HybridDDPRPC; a parameter server that
// serves more by design is said to, not named; a difference the run's
// samples cannot tell from noise is "inconclusive".
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "distbench/report/attribution.h"
#include "distbench/testing/report/straggler_test_reports.h"

namespace distbench::report {
namespace {

using testing::ddpSampledReport;
using testing::hybridSampledReport;
using testing::SampledRank;
using testing::SampledServer;
using testing::SampledTrainer;

struct Case {
  const char* name;
  Report report;
  std::string verdict;        // stragglerCheck.verdict; "notNamed": none or inconclusive
  std::string named;          // the straggler's name, "" for none
  std::string evidenceHas{};  // a part of stragglerCheck.evidence
};

// The row the verdict is on: DDP's only row, the hybrid's `All`.
const RowAttribution& verdictRow(const Attribution& a) { return a.rows.back(); }

void expectCase(const Case& c) {
  SCOPED_TRACE(c.name);
  const Attribution a = attribute(c.report);
  ASSERT_FALSE(a.rows.empty());
  const RowAttribution& row = verdictRow(a);
  ASSERT_TRUE(row.stragglerCheck.has_value());
  if (c.verdict == "notNamed") {
    // Noise may leave a rank's excess above the line with its interval
    // below it: inconclusive is then the honest answer, and names nobody.
    EXPECT_NE(row.stragglerCheck->verdict, "named") << row.stragglerCheck->evidence;
  } else {
    EXPECT_EQ(row.stragglerCheck->verdict, c.verdict) << row.stragglerCheck->evidence;
  }
  EXPECT_EQ(row.straggler ? row.straggler->name : "", c.named) << row.stragglerCheck->evidence;
  if (!c.evidenceHas.empty()) {
    EXPECT_NE(row.stragglerCheck->evidence.find(c.evidenceHas), std::string::npos)
        << row.stragglerCheck->evidence;
  }
  if (c.verdict != "named") {
    // Said, not silently dropped: the footer carries what was not named and why.
    const std::string footer = formatAttributionFooter(a);
    if (c.verdict == "inconclusive" || c.verdict == "byDesign") {
      EXPECT_NE(footer.find("straggler " + c.verdict), std::string::npos) << footer;
    }
  }
}

SampledRank same(double noise = 0.15) { return SampledRank{0.1, 0.02, noise}; }
SampledRank slowed(double factor, double noise = 0.15) {
  return SampledRank{0.1 * factor, 0.02, noise};
}

TEST(StragglerInterval, DdpNoiseAloneNamesNobody) {
  // Identical ranks, several seeds. At 15 % noise per iteration the
  // slowest by median is a few percent ahead: nothing to say. At 30 % over
  // four ranks the slowest's median can land a fifth above the others', and
  // its interval then reaches below what matters: not named.
  for (uint64_t seed : {1, 2, 3, 4, 5}) {
    expectCase({"2 ranks", ddpSampledReport({same(), same()}, 40, seed), "none", ""});
    expectCase({"4 ranks", ddpSampledReport({same(0.3), same(0.3), same(0.3), same(0.3)}, 40, seed),
                "notNamed", ""});
  }
}

TEST(StragglerInterval, DdpCappedRankIsNamed) {
  // A rank capped at half a CPU computes about twice as long; at 75 %, 1.3x.
  for (double factor : {2.0, 1.3}) {
    expectCase({"4 ranks, rank 3 slowed",
                ddpSampledReport({same(), same(), slowed(factor), same()}), "named", "trainer2",
                "own work"});
  }
}

TEST(StragglerInterval, DdpDifferenceThatStraddlesIsInconclusive) {
  // Eight iterations each, half fast and half slow on both ranks: rank 2's
  // median is 20 % above rank 1's, but a resample of either can land on
  // either mode.
  const std::vector<double> base = {0.08, 0.08, 0.08, 0.08, 0.12, 0.12, 0.12, 0.12};
  const std::vector<double> test = {0.08, 0.08, 0.08, 0.12, 0.12, 0.12, 0.12, 0.13};
  expectCase({"straddling", ddpSampledReport({same(), same()}, 8, 1, {base, test}), "inconclusive",
              "", "interval"});
}

TEST(StragglerInterval, DdpSignificantButSmallIsNotNamed) {
  // 3 % slower, with little noise: real, but under a tenth of the step.
  expectCase({"small", ddpSampledReport({same(0.01), slowed(1.03, 0.01)}), "none", ""});
}

TEST(StragglerInterval, HybridNoiseAloneNamesNobody) {
  const SampledTrainer t{same(0.2)};
  const SampledServer ps{};
  for (uint64_t seed : {1, 2, 3, 4, 5}) {
    expectCase({"2t/1ps", hybridSampledReport({t, t}, {ps}, 30, 5, seed), "none", ""});
    expectCase({"3t/2ps", hybridSampledReport({t, t, t}, {ps, ps}, 30, 5, seed), "none", ""});
    expectCase({"4t/2ps", hybridSampledReport({t, t, t, t}, {ps, ps}, 30, 5, seed), "none", ""});
  }
}

TEST(StragglerInterval, HybridTrainerSlowedInAnyPhaseIsNamed) {
  const SampledTrainer t{same()};
  const SampledServer ps{};
  // Slowed throughout (a CPU cap), or in its lookup alone (its RPCs).
  SampledTrainer capped{slowed(1.5)};
  SampledTrainer slowLookup{same()};
  slowLookup.lookupExtra = 0.03;
  expectCase({"capped", hybridSampledReport({t, t, capped}, {ps, ps}), "named", "trainer2",
              "own work (batch less allreduceWait)"});
  expectCase(
      {"slow lookup", hybridSampledReport({t, slowLookup, t}, {ps, ps}), "named", "trainer1"});
}

TEST(StragglerInterval, HybridSyncModeLeavesTheTrainersWaitInLookupOut) {
  // Sync mode: the fast trainers wait for the slow one in their lookups
  // (lookupExtra), which is not their own work; the slow one is named.
  SampledTrainer waiting{same()};
  waiting.lookupExtra = 0.05;
  const SampledTrainer capped{slowed(1.5)};
  const SampledServer ps{};
  expectCase({"sync", hybridSampledReport({waiting, waiting, capped}, {ps}, 30, 5, 11, "Sync"),
              "named", "trainer2", "batch less lookup, push and allreduceWait"});
}

TEST(StragglerInterval, ParameterServerWithMoreWorkByDesignIsExplainedNotNamed) {
  const SampledTrainer t{same()};
  // ps0 takes 1.4x the others' request bytes, and serves each request
  // slower for it.
  const SampledServer heavy{0.004, 0.1, 28000}, light{0.001, 0.1, 20000};
  expectCase({"uneven by design", hybridSampledReport({t, t, t}, {heavy, light, light}), "byDesign",
              "", "ps0 serves 1.40x the others' lookups by design"});
}

TEST(StragglerInterval, SlowParameterServerOfEqualLoadIsNamed) {
  const SampledTrainer t{same()};
  const SampledServer slow{0.02, 0.1}, fast{0.001, 0.1};
  expectCase(
      {"slow ps1", hybridSampledReport({t, t, t}, {fast, slow}), "named", "ps1", "service time"});
}

TEST(StragglerInterval, EqualParameterServersWithNoiseNameNobody) {
  // The case: ps0 1.3x the others' service time at random is no
  // straggler when the excess is a small share of the batch.
  const SampledTrainer t{same()};
  const SampledServer ps0{0.0013, 0.3}, ps1{0.001, 0.3};
  expectCase(
      {"ps0 1.3x of a tiny service", hybridSampledReport({t, t, t}, {ps0, ps1}), "none", ""});
}

// A CPU cap's stall lands in the collective: the capped rank runs its own
// phases faster than the rest, and the timing test names another rank. The
// throttle counter in `local` names the capped one.
TEST(StragglerInterval, ThrottleCounterNamesTheCappedRankOverTheTiming) {
  Report r = ddpSampledReport({slowed(2.0), same(0.15)});
  // Rank 2 capped, throttled 1.5 s of a run of about 40 x 0.16 s.
  r.localJson = testing::throttleLocalJson({{2, "trainer1", 0.25, 1.5}}, 3,
                                           {"master", "trainer0", "trainer1"});
  const Attribution a = attribute(r);
  const RowAttribution& row = verdictRow(a);
  ASSERT_TRUE(row.straggler.has_value());
  EXPECT_EQ(row.straggler->name, "trainer1");
  EXPECT_EQ(row.stragglerCheck->verdict, "named");
  EXPECT_EQ(row.stragglerCheck->timingVerdict, "named");
  EXPECT_EQ(row.stragglerCheck->timingName, "trainer0");
  EXPECT_NE(row.straggler->evidence.find("CPU throttled 1.50 s"), std::string::npos)
      << row.straggler->evidence;
  EXPECT_FALSE(row.whatIfSeconds.has_value()) << "a throttled rank's excess is not sized";
}

TEST(StragglerInterval, ALittleThrottlingExplainsASignificantStall) {
  // trainer0's own work is twice the other's, and trainer1 alone was
  // throttled, 0.1 s (1-2 % of the run): too little to name it by itself,
  // but the likelier cause of the stall the timing sees.
  Report r = ddpSampledReport({slowed(2.0), same(0.15)});
  r.localJson = testing::throttleLocalJson({{2, "trainer1", 0.75, 0.1}}, 3,
                                           {"master", "trainer0", "trainer1"});
  const Attribution a = attribute(r);
  const RowAttribution& row = verdictRow(a);
  ASSERT_TRUE(row.straggler.has_value()) << row.stragglerCheck->evidence;
  EXPECT_EQ(row.straggler->name, "trainer1");
  EXPECT_EQ(row.stragglerCheck->timingName, "trainer0");
  EXPECT_NE(row.straggler->evidence.find("stalls land in the collective"), std::string::npos)
      << row.straggler->evidence;
}

TEST(StragglerInterval, ALittleThrottlingWithoutAStallNamesNobody) {
  Report r = ddpSampledReport({same(0.15), same(0.15)});
  r.localJson = testing::throttleLocalJson({{2, "trainer1", 0.75, 0.1}}, 3,
                                           {"master", "trainer0", "trainer1"});
  const Attribution a = attribute(r);
  const RowAttribution& row = verdictRow(a);
  EXPECT_FALSE(row.straggler.has_value()) << row.stragglerCheck->evidence;
  EXPECT_EQ(row.stragglerCheck->verdict, "none");
}

TEST(StragglerInterval, SeveralThrottledRanksMakeTheTimingInconclusive) {
  // Two ranks throttled alike: neither explains the stall more than the other.
  Report r = ddpSampledReport({slowed(2.0), same(0.15), same(0.15)});
  r.localJson = testing::throttleLocalJson({{2, "trainer1", 0.75, 0.1}, {3, "trainer2", 0.75, 0.1}},
                                           4, {"master", "trainer0", "trainer1", "trainer2"});
  const Attribution a = attribute(r);
  const RowAttribution& row = verdictRow(a);
  EXPECT_FALSE(row.straggler.has_value()) << row.stragglerCheck->evidence;
  EXPECT_EQ(row.stragglerCheck->verdict, "inconclusive");
  EXPECT_NE(row.stragglerCheck->evidence.find("as were others"), std::string::npos)
      << row.stragglerCheck->evidence;
}

TEST(StragglerInterval, ThrottledHybridTrainerIsNamed) {
  const SampledTrainer t{same()};
  const SampledServer ps{};
  Report r = hybridSampledReport({t, t, t}, {ps, ps});
  r.localJson =
      testing::throttleLocalJson({{5, "trainer2", 0.25, 3.5}}, 6,
                                 {"master", "ps0", "ps1", "trainer0", "trainer1", "trainer2"});
  const Attribution a = attribute(r);
  const RowAttribution& row = verdictRow(a);
  ASSERT_TRUE(row.straggler.has_value()) << row.stragglerCheck->evidence;
  EXPECT_EQ(row.straggler->name, "trainer2");
  EXPECT_EQ(row.stragglerCheck->timingVerdict, "none");
}

TEST(StragglerInterval, OldReportsFallBackAndSaySo) {
  // A report from before the samples: the medians' rule, and the check says so.
  Report r = ddpSampledReport({same(), slowed(2.0)});
  web::json::value results = web::json::value::parse(r.resultsJson);
  for (web::json::value& rank : results["models"][0]["rows"][0]["perRank"].as_array()) {
    rank.erase("phaseSamples");
  }
  r.resultsJson = results.serialize();
  const Attribution a = attribute(r);
  const RowAttribution& row = verdictRow(a);
  ASSERT_TRUE(row.stragglerCheck.has_value());
  EXPECT_NE(row.stragglerCheck->evidence.find("without an interval"), std::string::npos)
      << row.stragglerCheck->evidence;
  EXPECT_NE(row.note.find("no per-iteration samples"), std::string::npos) << row.note;
}

TEST(StragglerInterval, SamplesOfNoTimeAreLeftOutNotThrown) {
  // A server that served a step's requests within the clock's resolution
  // (0 s) must not make the bootstrap refuse the report.
  const SampledTrainer t{same()};
  Report r = hybridSampledReport({t, t}, {SampledServer{}, SampledServer{}});
  web::json::value results = web::json::value::parse(r.resultsJson);
  results["parameterServers"][0]["serviceSamples"][0] = web::json::value::number(0);
  results["parameterServers"][1]["serviceSamples"][3] = web::json::value::number(-1e-6);
  r.resultsJson = results.serialize();
  expectCase({"zero service", r, "none", ""});
}

TEST(StragglerInterval, JsonCarriesTheCheck) {
  const Attribution a = attribute(ddpSampledReport({same(), slowed(2.0)}));
  const web::json::value root = web::json::value::parse(attributionToJson(a));
  const web::json::value& check = root.at("rows").at(0).at("stragglerCheck");
  EXPECT_EQ(check.at("verdict").as_string(), "named");
  EXPECT_NE(check.at("evidence").as_string().find("99% interval"), std::string::npos);
}

}  // namespace
}  // namespace distbench::report
