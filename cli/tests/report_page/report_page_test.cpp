// The report page's content, read back from the page itself: the data block
// the charts are drawn from, each kind's charts, the comparison with a
// baseline, and that report text cannot escape into the HTML. The reports
// are real runs (testing/fixtures/report/README.md); the browser test
// (report_browser_test.sh) checks that a browser draws them.
#include "distbench/cli/report_page/report_page.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "distbench/cli/report_page/chart_libraries.h"
#include "distbench/cli/report_page/html_text.h"
#include "distbench/report/diff_table.h"
#include "distbench/report/fabric_simulate.h"
#include "distbench/report/percentiles.h"
#include "distbench/report/report_diff.h"
#include "report_page/report_page_test_util.h"

namespace distbench::cli {
namespace {

using report::compareReports;
using report::DiffOptions;
using report::formatDiff;
using report::GroupDiff;
using report::ReportDiff;
using report::RowDiff;
using testing::chartIds;
using testing::chartSpec;
using testing::contains;
using testing::count;
using testing::dataBlock;
using testing::fixture;
using testing::withoutLibraries;
using vl::Json;

const std::string kEvil = "</script><script>alert(1)</script>";

std::string pageOf(const report::Report& run) {
  ReportPageInput input;
  input.run = &run;
  input.runSource = "run.json";
  return renderReportPage(input, chartLibraries());
}

std::vector<double> sortedSamples(const report::Series& s) {
  std::vector<double> sorted = s.samples;
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}

const Json& layer(const Json& spec, size_t i) { return spec.at("layer").as_array().at(i); }

// A copy, so that a range-for over the values of a temporary spec is safe.
std::vector<Json> values(const Json& specOrLayer) {
  const web::json::array& list = specOrLayer.at("data").at("values").as_array();
  return {list.begin(), list.end()};
}

Json resultsOf(const report::Report& r) { return Json::parse(r.resultsJson); }

TEST(ReportPage, HybridWithoutPhasesDrawsEpochTimesAndSaysPhasesAreMissing) {
  const report::Report run = fixture("tutorial-run-pre-phases.json");
  const std::string page = pageOf(run);
  const Json data = dataBlock(page);
  EXPECT_EQ(chartIds(data), (std::vector<std::string>{"hybrid-epoch-cdf", "hybrid-epoch-box"}));
  EXPECT_TRUE(contains(page, "No per-phase breakdown: this report has no per-batch phase timings"));

  // Every measured epoch of both trainers, in the order measured.
  const Json cdf = chartSpec(data, "hybrid-epoch-cdf");
  EXPECT_TRUE(contains(cdf.at("title").as_string(), "p50 and p95 marked"));
  const auto& samples = values(layer(cdf, 0));
  ASSERT_EQ(samples.size(), run.series[0].samples.size() + run.series[1].samples.size());
  for (size_t i = 0; i < run.series[0].samples.size(); ++i) {
    EXPECT_EQ(samples.at(i).at("trainer").as_string(), "Trainer0");
    EXPECT_DOUBLE_EQ(samples.at(i).at("seconds").as_double(), run.series[0].samples[i]);
  }
  EXPECT_EQ(layer(cdf, 0).at("transform").as_array().at(0).at("window").as_array().at(0).at("op"),
            vl::str("cume_dist"));

  // p50 and p95 of each trainer, as the tables and distbench diff compute them.
  const auto& marks = values(layer(cdf, 2));
  ASSERT_EQ(marks.size(), 4u);
  for (const Json& mark : marks) {
    const report::Series& s = run.series[mark.at("trainer").as_string() == "Trainer0" ? 0 : 1];
    const double p = mark.at("percentile").as_string() == "p50" ? 50 : 95;
    EXPECT_DOUBLE_EQ(mark.at("seconds").as_double(), report::percentileLinear(sortedSamples(s), p));
    EXPECT_DOUBLE_EQ(mark.at("fraction").as_double(), p / 100);
  }

  // The box plot adds every trainer pooled (the `All` series).
  const Json box = chartSpec(data, "hybrid-epoch-box");
  EXPECT_EQ(values(layer(box, 0)).size(), 2 * run.series[2].samples.size());
  EXPECT_EQ(values(layer(box, 1)).size(), 3u);  // a p95 tick per box
}

TEST(ReportPage, HybridWithPhasesStacksEachTrainersPhaseMedians) {
  const report::Report run = fixture("tutorial-run.json");
  const std::string page = pageOf(run);
  const Json data = dataBlock(page);
  EXPECT_EQ(chartIds(data),
            (std::vector<std::string>{"hybrid-epoch-cdf", "hybrid-epoch-box", "hybrid-phases"}));
  EXPECT_FALSE(contains(page, "No per-phase breakdown"));

  const Json spec = chartSpec(data, "hybrid-phases");
  EXPECT_TRUE(contains(spec.at("title").as_string(), "the p50 of each phase, stacked"));
  const std::vector<std::string> phases = {"lookup", "forward",       "backward",
                                           "push",   "allreduceWait", "optimizerStep"};
  EXPECT_EQ(spec.at("encoding").at("color").at("scale").at("domain"), vl::strings(phases));
  EXPECT_EQ(spec.at("mark"), vl::str("bar"));

  const Json trainers = resultsOf(run).at("trainers");
  const auto& bars = values(spec);
  ASSERT_EQ(bars.size(), 2 * phases.size());
  for (size_t t = 0; t < 2; ++t) {
    const Json& expected = trainers.as_array().at(t);
    for (size_t p = 0; p < phases.size(); ++p) {
      const Json& bar = bars.at(t * phases.size() + p);
      EXPECT_EQ(bar.at("trainer"), expected.at("name"));
      EXPECT_EQ(bar.at("phase").as_string(), phases[p]);
      EXPECT_EQ(bar.at("order").as_integer(), static_cast<int>(p));
      EXPECT_DOUBLE_EQ(bar.at("seconds").as_double(),
                       expected.at("phases").at(phases[p]).at("p50").as_double());
    }
  }
}

TEST(ReportPage, HybridWithPhasesForSomeTrainersNamesTheOthers) {
  report::Report run = fixture("tutorial-run.json");
  Json results = resultsOf(run);
  results["trainers"][1].erase("phases");
  run.resultsJson = results.serialize();
  const std::string page = pageOf(run);
  const Json spec = chartSpec(dataBlock(page), "hybrid-phases");
  for (const Json& bar : values(spec)) EXPECT_EQ(bar.at("trainer").as_string(), "Trainer0");
  EXPECT_EQ(values(spec).size(), 6u);
  EXPECT_TRUE(contains(page, "No phase timings in this report for: Trainer1."));
}

TEST(ReportPage, DdpDrawsThroughputEfficiencyAndPhasesPerModel) {
  const report::Report run = fixture("ddp-smallcnn.json");
  const std::string page = pageOf(run);
  const Json data = dataBlock(page);
  EXPECT_EQ(chartIds(data),
            (std::vector<std::string>{"ddp-throughput-0", "ddp-efficiency-0", "ddp-phases-0"}));
  EXPECT_TRUE(contains(page, "<h3>smallcnn with batch size 4</h3>"));

  const Json rows = resultsOf(run).at("models").as_array().at(0).at("rows");
  ASSERT_EQ(rows.size(), 3u);  // no ddp, 1M/1R, 1M/2R
  const double single = rows.at(0).at("aggregateExamplesPerSecond").at("p50").as_double();
  std::map<std::string, double> ddp, ideal;
  for (const Json& point : values(chartSpec(data, "ddp-throughput-0"))) {
    const std::string line = point.at("line").as_string();
    const std::string row = point.at("row").as_string();
    (line == "DDP" || line == "no DDP (one rank alone)" ? ddp : ideal)[row] =
        point.at("examplesPerSecond").as_double();
  }
  EXPECT_EQ(ddp.size(), 3u);
  EXPECT_EQ(ideal.size(), 2u);
  for (const Json& row : rows.as_array()) {
    const std::string label = row.at("row").as_string();
    EXPECT_DOUBLE_EQ(ddp[label], row.at("aggregateExamplesPerSecond").at("p50").as_double());
    if (label != "no ddp") {
      EXPECT_DOUBLE_EQ(ideal[label], single * row.at("ranks").as_double());
    }
  }

  const Json efficiency = chartSpec(data, "ddp-efficiency-0");
  ASSERT_EQ(values(efficiency).size(), 2u);  // DDP rows only: no ddp is the reference
  for (const Json& point : values(efficiency)) {
    const Json& row = rows.at(point.at("row").as_string() == "1M/1R" ? 1 : 2);
    EXPECT_DOUBLE_EQ(point.at("efficiency").as_double(), row.at("scalingEfficiency").as_double());
    EXPECT_EQ(point.at("ranks"), row.at("ranks"));
  }

  const Json phases = chartSpec(data, "ddp-phases-0");
  EXPECT_TRUE(contains(phases.at("title").as_string(), "the p50 of each phase, stacked"));
  ASSERT_EQ(values(phases).size(), 3u * 4u);
  for (const Json& bar : values(phases)) {
    const std::string label = bar.at("row").as_string();
    const Json& row = label == "no ddp" ? rows.at(0) : label == "1M/1R" ? rows.at(1) : rows.at(2);
    EXPECT_DOUBLE_EQ(bar.at("seconds").as_double(),
                     row.at("phases").at(bar.at("phase").as_string()).at("p50").as_double());
  }
}

TEST(ReportPage, CollectivesDrawLatencyAndBusbwOnLogLogAxes) {
  const report::Report run = fixture("collectives-tiny.json");
  const Json data = dataBlock(pageOf(run));
  EXPECT_EQ(chartIds(data), (std::vector<std::string>{"collectives-latency", "collectives-busbw"}));
  const Json ops = resultsOf(run).at("ops");
  for (const auto& [id, name] :
       {std::pair<std::string, std::string>{"collectives-latency", "latency"},
        {"collectives-busbw", "busbwGBps"}}) {
    const Json spec = chartSpec(data, id);
    const Json& encoding = spec.at("encoding");
    EXPECT_EQ(encoding.at("x").at("scale").at("type"), vl::str("log")) << id;
    EXPECT_EQ(encoding.at("y").at("scale").at("type"), vl::str("log")) << id;
    // Ticks at the sizes measured.
    const Json& ticks = encoding.at("x").at("axis").at("values");
    ASSERT_EQ(ticks.size(), 2u);
    EXPECT_EQ(ticks.at(0).as_double(), 1024);
    EXPECT_EQ(ticks.at(1).as_double(), 4096);
    const std::vector<Json> points = values(spec);
    ASSERT_EQ(points.size(), ops.size()) << id;
    for (size_t i = 0; i < ops.size(); ++i) {
      const Json& op = ops.as_array().at(i);
      const Json& point = points.at(i);
      EXPECT_EQ(point.at("collective").as_string(),
                op.at("op").as_string() + " " + op.at("dtype").as_string());
      EXPECT_EQ(point.at("bytes").as_double(), op.at("bytes").as_double());
      const double expected = name == "latency" ? op.at("latency").at("p50").as_double()
                                                : op.at("busbwGBps").as_double();
      EXPECT_DOUBLE_EQ(point.at(name).as_double(), expected);
    }
  }
}

// A Fabric run of 5 nodes whose node 3's links are at a quarter: the matrix
// holds every measured pair both ways, node 3's cells far below the line,
// and the suspects table names it.
TEST(ReportPage, FabricDrawsThePairMatrixAndNamesTheSuspect) {
  report::FabricWorld world;
  world.nodes = report::fabricNodes(5);
  world.nodeFactor[3] = 0.25;
  world.seed = 9;
  const report::FabricMeasurements m = report::measureAllPairs(world);
  report::Report run = fixture("collectives-tiny.json");
  run.kind = "Fabric";
  run.resultsJson = "{\"fabric\":" + report::fabricToJson(m) + "}";
  const std::string page = pageOf(run);
  const Json data = dataBlock(page);
  EXPECT_EQ(chartIds(data), (std::vector<std::string>{"fabric-matrix"}));
  const std::vector<Json> cells = values(chartSpec(data, "fabric-matrix"));
  ASSERT_EQ(cells.size(), 2u * 10u) << "every pair of 5, both ways";
  for (const Json& cell : cells) {
    const bool slowNode = cell.at("x").as_string() == "trainer3" || cell.at("y").as_string() == "trainer3";
    if (slowNode) {
      EXPECT_LT(cell.at("ratio").as_double(), 0.5) << cell.serialize();
    } else {
      EXPECT_GT(cell.at("ratio").as_double(), 0.75) << cell.serialize();
    }
  }
  EXPECT_TRUE(contains(page, "<td>slow</td><td>node</td><td>trainer3</td>")) << page.substr(0, 2000);
  EXPECT_TRUE(contains(page, "10 of 10 pairs measured"));
}

TEST(ReportPage, KeepsTheReportItWasDrawnFrom) {
  for (const char* name : {"tutorial-run.json", "tutorial-run-pre-phases.json", "ddp-smallcnn.json",
                           "collectives-tiny.json"}) {
    const report::Report run = fixture(name);
    const Json data = dataBlock(pageOf(run));
    const report::Report back = report::parseReport(data.at("report").serialize());
    EXPECT_EQ(back.name, run.name) << name;
    ASSERT_EQ(back.series.size(), run.series.size()) << name;
    for (size_t i = 0; i < run.series.size(); ++i) {
      EXPECT_EQ(back.series[i].samples, run.series[i].samples) << name;
    }
    EXPECT_EQ(Json::parse(back.resultsJson), Json::parse(run.resultsJson)) << name;
    EXPECT_FALSE(data.has_field("baseline"));
  }
}

TEST(ReportPage, ShowsTheEnvironmentAndTheConfigCollapsed) {
  const report::Report run = fixture("ddp-smallcnn.json");
  const std::string page = pageOf(run);
  for (const std::string& text :
       {std::string("<td>host</td><td>vm</td>"),
        std::string("<td>torch version</td><td>1.13.0</td>"),
        std::string("<td>backend</td><td>gloo</td>"), std::string("<td>device</td><td>cpu</td>"),
        std::string("<td>CPU</td><td>AMD EPYC, 2 logical CPUs</td>"),
        std::string("<td>topology</td><td>2 trainers, 0 parameter servers, world size 3</td>"),
        std::string("<td>seed</td><td>0</td>"), std::string("<td>bucketCapMB</td><td>25</td>")}) {
    EXPECT_TRUE(contains(page, text)) << text;
  }
  EXPECT_TRUE(contains(page, "<details class=\"config\">"));
  EXPECT_TRUE(contains(page, "&quot;batchSize&quot;: 4,\n"));
  EXPECT_TRUE(contains(page, "  &quot;apiVersion&quot;: &quot;distbench.io/v1alpha1&quot;,\n"));
}

// Whatever a report holds, it stays text: in the HTML escaped, in the data
// block unable to end its <script> element, and back out of JSON.parse as it was.
TEST(ReportPage, ReportTextCannotBreakOutOfThePage) {
  report::Report run = fixture("tutorial-run.json");
  run.name = kEvil;
  run.host.hostname = "<img src=x onerror=alert(2)>";
  run.host.cpuModel = "\" onmouseover=\"alert(3)";
  run.versions["torch"] = "<!--";
  run.series[0].group = kEvil;
  run.series[0].row = kEvil;
  run.configJson = "{\"metadata\":{\"name\":\"</script><script>alert(4)</script>\"}}";
  Json results = resultsOf(run);
  results["trainers"][0]["name"] = vl::str(kEvil);
  run.resultsJson = results.serialize();

  const std::string page = withoutLibraries(pageOf(run), chartLibraries());
  // The monitor, the data block, one per library, the page script: no more.
  const size_t scripts = 3 + chartLibraries().size();
  EXPECT_EQ(count(page, "<script"), scripts);
  EXPECT_EQ(count(page, "</script>"), scripts);
  EXPECT_EQ(count(page, "<!--"), 0u);
  EXPECT_FALSE(contains(page, "<img"));
  EXPECT_TRUE(contains(page, "<td>CPU</td><td>&quot; onmouseover=&quot;alert(3), 2 logical"));
  EXPECT_TRUE(contains(page, "&quot;name&quot;: &quot;&lt;/script&gt;&lt;script&gt;alert(4)"));
  EXPECT_TRUE(contains(page, "<h1>&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;<small>"));
  EXPECT_TRUE(contains(page, "<title>distbench report: &lt;/script&gt;"));

  const Json data = dataBlock(page);
  const report::Report back = report::parseReport(data.at("report").serialize());
  EXPECT_EQ(back.name, kEvil);
  EXPECT_EQ(back.host.hostname, run.host.hostname);
  EXPECT_EQ(back.series[0].row, kEvil);
  EXPECT_EQ(values(layer(chartSpec(data, "hybrid-epoch-cdf"), 0)).at(0).at("trainer").as_string(),
            kEvil);
}

TEST(ReportPage, FetchesNothing) {
  for (const char* name : {"tutorial-run.json", "ddp-smallcnn.json", "collectives-tiny.json"}) {
    const std::string page = withoutLibraries(pageOf(fixture(name)), chartLibraries());
    EXPECT_FALSE(contains(page, "http://")) << name;
    EXPECT_FALSE(contains(page, "https://")) << name;
    EXPECT_FALSE(contains(page, " src=")) << name;
    EXPECT_FALSE(contains(page, "<link")) << name;
    EXPECT_FALSE(contains(page, "$schema")) << name;
  }
}

TEST(ReportPage, BundlesTheChartLibrariesInLoadOrderWithTheirLicences) {
  const std::vector<ChartLibrary>& libraries = chartLibraries();
  if (libraries.empty()) GTEST_SKIP() << "built with -DDISTBENCH_REPORT_HTML=OFF";
  std::vector<std::string> names;
  for (const ChartLibrary& library : libraries) names.emplace_back(library.name);
  EXPECT_EQ(names, (std::vector<std::string>{"vega", "vega-lite", "vega-embed"}));
  const std::string page = pageOf(fixture("collectives-tiny.json"));
  size_t previous = 0;
  for (const ChartLibrary& library : libraries) {
    EXPECT_GT(library.script.size(), 10000u) << library.name;
    const size_t at = page.find("<script>" + std::string(library.script) + "</script>");
    ASSERT_NE(at, std::string::npos) << library.name;
    EXPECT_GT(at, previous) << library.name << " out of order";
    previous = at;
    EXPECT_TRUE(contains(library.license, "Redistribution and use")) << library.name;
    EXPECT_TRUE(contains(page, htmlEscape(library.license))) << library.name;
  }
  // After the data block, before the page script that uses them.
  EXPECT_GT(page.find("<script>" + std::string(libraries.front().script)),
            page.find(kReportDataId));
}

TEST(ReportPage, RefusesToInlineAScriptThatWouldEndItsElement) {
  const report::Report run = fixture("collectives-tiny.json");
  ReportPageInput input;
  input.run = &run;
  for (const char* text : {"var a = '</SCRIPT>';", "var a = '<!--';"}) {
    EXPECT_THROW(renderReportPage(input, {{"evil", text, ""}}), std::invalid_argument) << text;
  }
}

class ReportPageBaseline : public ::testing::Test {
 protected:
  // The run is the baseline's epochs 25% slower: every row regresses.
  void SetUp() override {
    base_ = fixture("tutorial-run.json");
    run_ = base_;
    for (report::Series& s : run_.series) {
      for (double& seconds : s.samples) seconds *= 1.25;
    }
  }

  std::string page(const DiffOptions& options) {
    diff_ = compareReports(base_, run_, options);
    ReportPageInput input;
    input.run = &run_;
    input.runSource = "run.json";
    input.baseline = &base_;
    input.baselineSource = "base.json";
    input.diff = &diff_;
    input.options = options;
    return renderReportPage(input, chartLibraries());
  }

  report::Report base_, run_;
  ReportDiff diff_;
};

TEST_F(ReportPageBaseline, ShowsTheRowsTheDiffComparesWithTheirIntervals) {
  DiffOptions options;
  options.thresholdPercent = 5;
  const std::string text = page(options);
  const Json data = dataBlock(text);
  ASSERT_EQ(chartIds(data).front(), "baseline-change");
  const Json spec = chartSpec(data, "baseline-change");
  EXPECT_TRUE(contains(spec.at("title").as_string(), "95% bootstrap interval"));

  const auto& rows = values(spec);
  ASSERT_EQ(rows.size(), diff_.comparedRows());
  ASSERT_EQ(rows.size(), 3u);  // Trainer0, Trainer1, All
  size_t i = 0;
  for (const GroupDiff& group : diff_.groups) {
    for (const RowDiff& row : group.rows) {
      const Json& shown = rows.at(i++);
      EXPECT_EQ(shown.at("row").as_string(), group.group + " · " + row.base->row);
      EXPECT_DOUBLE_EQ(shown.at("change").as_double(), row.median.pointChange * 100);
      EXPECT_DOUBLE_EQ(shown.at("low").as_double(), row.median.low * 100);
      EXPECT_DOUBLE_EQ(shown.at("high").as_double(), row.median.high * 100);
      EXPECT_TRUE(row.regressed);
      EXPECT_EQ(shown.at("verdict").as_string(), "regression");
    }
  }
  EXPECT_NEAR(rows.at(0).at("change").as_double(), 25, 1e-9);

  EXPECT_EQ(count(text, "<tr class=\"regressed\">"), 3u);
  EXPECT_TRUE(contains(text,
                       "<p class=\"verdict bad\">regressions over 5% (median slower, 95% CI "
                       "above 0): HybridDDPRPC: Trainer0 +25.0%"));
  EXPECT_TRUE(contains(text, htmlEscape(formatDiff(base_, run_, diff_, options))));
  EXPECT_TRUE(contains(text, "<td>+25.0%</td>"));
  EXPECT_TRUE(dataBlock(text).has_field("baseline"));
}

TEST_F(ReportPageBaseline, WithoutAThresholdNothingIsARegression) {
  const std::string text = page(DiffOptions{});
  EXPECT_EQ(count(text, "<tr class=\"regressed\">"), 0u);
  EXPECT_FALSE(contains(text, "class=\"verdict"));
  for (const Json& row : values(chartSpec(dataBlock(text), "baseline-change"))) {
    EXPECT_EQ(row.at("verdict").as_string(), "slower");
  }
}

TEST_F(ReportPageBaseline, TakesTheDiffsPercentilesAndConfidence) {
  DiffOptions options;
  options.percentiles = {50, 99};
  options.bootstrap.confidence = 0.9;
  const std::string text = page(options);
  EXPECT_TRUE(contains(text, "<th>baseline p50</th><th>this run p50</th><th>p50 change</th>"));
  EXPECT_TRUE(contains(text, "<th>p99 change</th>"));
  EXPECT_TRUE(contains(text, "<th>90% interval</th>"));
  EXPECT_FALSE(contains(text, "p75 change"));
}

// Four runs of the tutorial fixture, the last one 50% slower.
std::vector<report::PooledRun> trendRuns() {
  std::vector<report::PooledRun> runs;
  const report::Report base = fixture("tutorial-run.json");
  for (double scale : {1.0, 1.01, 0.99, 1.5}) {
    report::Report r = base;
    for (report::Series& s : r.series) {
      for (double& seconds : s.samples) seconds *= scale;
    }
    runs.push_back({"run-" + std::to_string(runs.size() + 1), r});
  }
  return runs;
}

TEST(ReportPageTrend, DrawsEachRowsP50PerRunWithTheBaselineBandAndTheVerdicts) {
  const std::vector<report::PooledRun> runs = trendRuns();
  report::TrendOptions options;
  options.diff.thresholdPercent = 5;
  const std::vector<report::TrendRun> trend = report::replayTrend(runs, options);
  ReportPageInput input;
  input.run = &runs.back().report;
  input.runSource = "run-4.json";
  input.trend = &trend;
  input.trendOptions = options;
  const std::string text = renderReportPage(input, chartLibraries());

  const Json data = dataBlock(text);
  ASSERT_EQ(chartIds(data).front(), "trend-p50") << "the trend comes first";
  const Json spec = chartSpec(data, "trend-p50");
  EXPECT_EQ(spec.at("facet").at("row").at("field").as_string(), "series");
  const std::vector<Json> points = values(spec);
  const size_t rows = runs.back().report.series.size();
  ASSERT_EQ(points.size(), runs.size() * rows);
  for (size_t i = 0; i < points.size(); ++i) {
    const Json& point = points[i];
    const report::TrendPoint& expected = trend[i / rows].points[i % rows];
    EXPECT_EQ(point.at("index").as_integer(), static_cast<int>(i / rows + 1));
    EXPECT_EQ(point.at("run").as_string(), "run-" + std::to_string(i / rows + 1));
    EXPECT_DOUBLE_EQ(point.at("p50").as_double(), expected.p50);
    if (i / rows < 2) {
      EXPECT_TRUE(point.at("baseline").is_null()) << "no baseline for the first two runs";
      EXPECT_EQ(point.at("verdict").as_string(), "no baseline");
      continue;
    }
    EXPECT_DOUBLE_EQ(point.at("baseline").as_double(), *expected.baselineP50);
    EXPECT_DOUBLE_EQ(point.at("line").as_double(), *expected.baselineP50 * 1.05);
    EXPECT_DOUBLE_EQ(point.at("change").as_double(), expected.change->pointChange * 100);
    EXPECT_EQ(point.at("verdict").as_string(), i / rows == 3 ? "regression" : "no regression");
  }
  EXPECT_TRUE(contains(text, "<a href=\"#trend\">Trend against the rolling baseline</a>"));
  EXPECT_TRUE(contains(text, "<p class=\"verdict bad\">1 of 4 runs regressed over 5%</p>"));
  EXPECT_EQ(count(text, "<tr class=\"regressed\">"), 1u);
  EXPECT_TRUE(contains(text, "<td>run-4</td><td>Regression</td><td>3 runs: run-1 .. run-3</td>"));
  EXPECT_TRUE(contains(text, "<td>run-2</td><td>NoBaseline</td><td>(nothing)</td>"));
}

}  // namespace
}  // namespace distbench::cli
