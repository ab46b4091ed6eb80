#include "distbench/report/baseline_pool.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "distbench/report/report_json.h"
#include "distbench/testing/report/diff_test_reports.h"

namespace distbench::report {
namespace {

using testing::ddpReport;
using testing::ddpSeries;

Report run(const std::string& name, double noDdp, double twoRanks) {
  Report r = ddpReport({ddpSeries("resnet50", 32, "no ddp", 1, {noDdp, noDdp + 0.5}),
                        ddpSeries("resnet50", 32, "1M/2R", 2, {twoRanks, twoRanks, twoRanks})});
  r.name = name;
  r.configJson = R"({"spec":{}})";
  r.resultsJson = R"({"models":[]})";
  r.attributionJson = R"({"rows":[]})";
  r.localJson = R"({"links":"x"})";
  return r;
}

Series hybridRow(const std::string& row, double examplesPerEpoch, std::vector<double> samples) {
  Series s;
  s.group = "HybridDDPRPC";
  s.groupKey = {{"batchesPerEpoch", "10"}};
  s.row = row;
  s.sampleOf = "epoch";
  s.workPerSample = examplesPerEpoch;
  s.samples = std::move(samples);
  return s;
}

std::string poolError(const std::vector<Report>& runs) {
  try {
    poolReports(runs);
  } catch (const ReportError& e) {
    return e.what();
  }
  return "(pooled)";
}

TEST(BaselinePool, ConcatenatesEachRowsSamplesInRunOrderAndCountsThemPerRun) {
  const Report pool = poolReports({run("a", 1, 2), run("b", 3, 4), run("c", 5, 6)});
  ASSERT_EQ(pool.series.size(), 2u);
  EXPECT_EQ(pool.series[0].row, "no ddp");
  EXPECT_EQ(pool.series[0].samples, (std::vector<double>{1, 1.5, 3, 3.5, 5, 5.5}));
  EXPECT_EQ(pool.series[0].runSamples, (std::vector<int>{2, 2, 2}));
  EXPECT_EQ(pool.series[1].samples, (std::vector<double>{2, 2, 2, 4, 4, 4, 6, 6, 6}));
  EXPECT_EQ(pool.series[1].runSamples, (std::vector<int>{3, 3, 3}));
  EXPECT_EQ(pool.name, "pool of 3 runs: a .. c");
  EXPECT_EQ(pool.kind, "DDP");
}

TEST(BaselinePool, KeepsWhatAComparisonNeedsAndDropsTheRest) {
  const Report pool = poolReports({run("a", 1, 2)});
  EXPECT_EQ(pool.configJson, "{}");
  EXPECT_EQ(pool.resultsJson, "{}");
  EXPECT_TRUE(pool.attributionJson.empty());
  EXPECT_TRUE(pool.localJson.empty());
  EXPECT_EQ(pool.host.hostname, "vm");
  EXPECT_EQ(pool.versions.at("torch"), "1.13.1");
  EXPECT_EQ(pool.worldSize, 5);
  EXPECT_EQ(pool.name, "pool of 1 run: a");
  // And it is a report like any other: it survives the JSON the ConfigMap holds.
  EXPECT_EQ(parseReport(toJson(pool)).series[1].runSamples, std::vector<int>{3});
}

TEST(BaselinePool, ARowMissingFromSomeRunsPoolsTheRunsThatHaveIt) {
  Report b = run("b", 3, 4);
  b.series.pop_back();
  const Report pool = poolReports({run("a", 1, 2), b, run("c", 5, 6)});
  EXPECT_EQ(pool.series[1].samples, (std::vector<double>{2, 2, 2, 6, 6, 6}));
  EXPECT_EQ(pool.series[1].runSamples, (std::vector<int>{3, 3}));
}

TEST(BaselinePool, EpochRowsArePooledPerUnitOfTheFirstRunsWork) {
  Report a = run("a", 1, 2), b = run("b", 1, 2);
  a.kind = b.kind = "HybridDDPRPC";
  a.series = {hybridRow("Trainer0", 100, {1.0})};
  b.series = {hybridRow("Trainer0", 125, {1.0, 2.0})};
  const Report pool = poolReports({a, b});
  EXPECT_EQ(pool.series[0].samples, (std::vector<double>{1.0, 0.8, 1.6}));
  EXPECT_EQ(pool.series[0].workPerSample, 100);
}

TEST(BaselinePool, RefusesRunsThatMeasuredSomethingElseNamingTheRun) {
  EXPECT_EQ(poolError({}), "cannot pool no runs");
  Report other = run("b", 1, 2);
  other.kind = "Collectives";
  EXPECT_EQ(poolError({run("a", 1, 2), other}),
            "cannot pool run 1 (b): a Collectives benchmark, the runs before it are DDP");
  Report key = run("b", 1, 2);
  key.series[1].groupKey["imageSize"] = "64";
  EXPECT_EQ(poolError({run("a", 1, 2), key}),
            "cannot pool run 1 (b): group resnet50 with batch size 32 has another groupKey than "
            "in the runs before it");
  Report ranks = run("b", 1, 2);
  ranks.series[1].ranks = 4;
  EXPECT_EQ(poolError({run("a", 1, 2), ranks}),
            "cannot pool run 1 (b): resnet50 with batch size 32 / 1M/2R measured something else "
            "(ranks 2 vs 4)");
  Report work = run("b", 1, 2);
  work.series[0].workPerSample = 16;
  EXPECT_EQ(poolError({run("a", 1, 2), work}),
            "cannot pool run 1 (b): resnet50 with batch size 32 / no ddp measured something else "
            "(workPerSample 32 vs 16)");
}

TEST(BaselinePool, RunsJsonRoundTripsNamesAndTrimmedReports) {
  const std::vector<PooledRun> runs = {{"sched-1", trimmedForBaseline(run("sched-1", 1, 2))},
                                       {"sched-\"2\"", trimmedForBaseline(run("sched-2", 3, 4))}};
  const std::vector<PooledRun> parsed = parseRunsJson(runsJson(runs));
  ASSERT_EQ(parsed.size(), 2u);
  EXPECT_EQ(parsed[1].name, "sched-\"2\"");
  EXPECT_EQ(parsed[1].report.series[0].samples, runs[1].report.series[0].samples);
  EXPECT_EQ(runsJson(parsed), runsJson(runs));
  EXPECT_EQ(parseRunsJson("[]").size(), 0u);
}

TEST(BaselinePool, RunsJsonErrorsNameTheEntry) {
  auto error = [](const std::string& json) {
    try {
      parseRunsJson(json);
    } catch (const ReportError& e) {
      return std::string(e.what());
    }
    return std::string("(parsed)");
  };
  EXPECT_EQ(error("{}"), "runs.json: must be a list of {name, report}");
  EXPECT_EQ(error("[{\"report\":{}}]"), "runs.json: [0].name: must be a string");
  EXPECT_EQ(error("[{\"name\":\"a\"}]"), "runs.json: [0].report: missing (required)");
  const std::string good = toJson(run("a", 1, 2));
  EXPECT_EQ(error("[{\"name\":\"a\",\"report\":" + good + "},{\"name\":\"b\",\"report\":{}}]"),
            "runs.json: [1].report: schemaVersion: missing (required)");
  EXPECT_NE(error("[").find("runs.json: not valid JSON"), std::string::npos);
}

std::vector<std::string> namesOf(const std::vector<PooledRun>& pool) {
  std::vector<std::string> names;
  for (const PooledRun& r : pool) names.push_back(r.name);
  return names;
}

TEST(BaselinePool, ARunEntersUnlessItRegressedAndThePoolKeepsTheNewestN) {
  std::vector<PooledRun> pool;
  for (const char* name : {"r1", "r2", "r3"}) {
    const PoolStep step = nextPool(pool, {name, run(name, 1, 2)}, PoolVerdict::NoRegression, 2);
    EXPECT_TRUE(step.entered);
    EXPECT_FALSE(step.restarted);
    pool = step.pool;
  }
  EXPECT_EQ(namesOf(pool), (std::vector<std::string>{"r2", "r3"}));
  EXPECT_EQ(pool[1].report.configJson, "{}") << "stored trimmed";

  const PoolStep regressed = nextPool(pool, {"r4", run("r4", 9, 9)}, PoolVerdict::Regression, 2);
  EXPECT_FALSE(regressed.entered);
  EXPECT_EQ(namesOf(regressed.pool), (std::vector<std::string>{"r2", "r3"}))
      << "a slow run must not become the baseline the next run is judged by";

  const PoolStep first = nextPool({}, {"r1", run("r1", 1, 2)}, PoolVerdict::NoBaseline, 5);
  EXPECT_TRUE(first.entered);
  EXPECT_EQ(namesOf(first.pool), std::vector<std::string>{"r1"});

  const PoolStep shrunk = nextPool(pool, {"r5", run("r5", 1, 2)}, PoolVerdict::Regression, 1);
  EXPECT_EQ(namesOf(shrunk.pool), std::vector<std::string>{"r3"}) << "a lowered N applies at once";
}

TEST(BaselinePool, AnIncomparableRunStartsANewPool) {
  const std::vector<PooledRun> pool = {{"r1", run("r1", 1, 2)}, {"r2", run("r2", 1, 2)}};
  const PoolStep step = nextPool(pool, {"r3", run("r3", 1, 2)}, PoolVerdict::Incomparable, 5);
  EXPECT_TRUE(step.entered);
  EXPECT_TRUE(step.restarted);
  EXPECT_EQ(namesOf(step.pool), std::vector<std::string>{"r3"});
  // Entered uncompared (the pool too small to judge) but not poolable with it.
  Report other = run("r4", 1, 2);
  other.series[0].groupKey["imageSize"] = "64";
  const PoolStep uncompared = nextPool(pool, {"r4", other}, PoolVerdict::NoBaseline, 5);
  EXPECT_TRUE(uncompared.restarted);
  EXPECT_EQ(namesOf(uncompared.pool), std::vector<std::string>{"r4"});
  EXPECT_THROW(nextPool(pool, {"r3", run("r3", 1, 2)}, PoolVerdict::NoRegression, 0),
               std::invalid_argument);
}

TEST(BaselinePool, APoolJudgesOnceItHoldsTwoRunsOrTheOneItMayKeep) {
  const std::vector<PooledRun> one = {{"r1", run("r1", 1, 2)}};
  const std::vector<PooledRun> two = {{"r1", run("r1", 1, 2)}, {"r2", run("r2", 1, 2)}};
  EXPECT_FALSE(poolJudges({}, 5));
  EXPECT_FALSE(poolJudges(one, 5));
  EXPECT_TRUE(poolJudges(two, 5));
  EXPECT_TRUE(poolJudges(one, 1));
  EXPECT_FALSE(poolJudges({}, 1));
}

TEST(BaselinePool, TheVerdictOfADiff) {
  const Report base = poolReports({run("a", 1, 2), run("b", 1, 2)});
  DiffOptions options;
  options.thresholdPercent = 5;
  EXPECT_EQ(poolVerdictOf(compareReports(base, run("c", 1, 2), options)),
            PoolVerdict::NoRegression);
  Report other = run("c", 1, 2);
  for (Series& s : other.series) s.row += " (renamed)";
  EXPECT_EQ(poolVerdictOf(compareReports(base, other, options)), PoolVerdict::Incomparable);
}

}  // namespace
}  // namespace distbench::report
