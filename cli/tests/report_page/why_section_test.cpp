// The report page's Why section: the attribution of each row (bound,
// shares, straggler, link, what-if), on synthetic reports shaped as the
// worker writes them (testing/include/distbench/testing/report/attribution_test_reports.h) and on the
// real runs in testing/fixtures/report.
#include <gtest/gtest.h>

#include "distbench/cli/report_page/chart_libraries.h"
#include "distbench/cli/report_page/report_page.h"
#include "distbench/cli/report_page/report_page_sections.h"
#include "distbench/testing/report/attribution_test_reports.h"
#include "distbench/testing/report/straggler_test_reports.h"
#include "report_page/report_page_test_util.h"

namespace distbench::cli {
namespace {

using report::testing::collectivesAttributionReport;
using report::testing::ddpAttributionReport;
using report::testing::localJson;
using report::testing::LocalRankLink;
using report::testing::RankTiming;
using testing::contains;
using testing::fixture;

// Rank 3 computes twice what the others do; they wait for it.
report::Report stragglerRun() {
  return ddpAttributionReport({{1, 0.1, 0.11}, {2, 0.1, 0.11}, {3, 0.2, 0.01}, {4, 0.1, 0.11}});
}

TEST(WhySection, NamesTheStragglerItsExcessAndTheWhatIf) {
  const PageSection why = whySection(stragglerRun());
  EXPECT_EQ(why.id, "why");
  EXPECT_EQ(why.heading, "Why");
  EXPECT_TRUE(why.charts.empty());
  const std::string& html = why.html;
  EXPECT_TRUE(contains(html, "<td>1M/4R</td><td>communication-bound</td><td>210 ms</td>")) << html;
  EXPECT_TRUE(contains(html, "allreduceWait 40.5%")) << html;
  EXPECT_TRUE(contains(html, "<td>trainer2 (rank 3), +100 ms per iteration: compute 2.00x"))
      << html;
  EXPECT_TRUE(contains(html,
                       "<td>110 ms instead of 210 ms if trainer2 computed as fast as the "
                       "others</td>"))
      << html;
  // The no-ddp row: one rank, nobody to wait for.
  EXPECT_TRUE(contains(html, "<td>no ddp</td><td>compute-bound</td>")) << html;
  EXPECT_TRUE(contains(html,
                       "<p><strong>smallcnn with batch size 4 1M/4R: "
                       "communication-bound"))
      << html;
}

// A difference the run cannot tell from noise is said, not named
// (report/src/straggler_interval.h): the page shows the check's verdict
// and its interval where the straggler column would say "none".
TEST(WhySection, SaysAStragglerIsInconclusiveWithItsInterval) {
  const std::vector<double> base = {0.08, 0.08, 0.08, 0.08, 0.12, 0.12, 0.12, 0.12};
  const std::vector<double> test = {0.08, 0.08, 0.08, 0.12, 0.12, 0.12, 0.12, 0.13};
  const report::Report run = report::testing::ddpSampledReport(
      {report::testing::SampledRank{}, report::testing::SampledRank{}}, 8, 1, {base, test});
  const std::string html = whySection(run).html;
  EXPECT_TRUE(contains(html, "<td>inconclusive: trainer1: own work (iteration less allreduceWait)"))
      << html;
  EXPECT_TRUE(contains(html, "99% interval")) << html;
}

TEST(WhySection, NamesASlowLinkAtItsRateAndTheOthers) {
  report::Report run = ddpAttributionReport(
      {{1, 0.1, 1.2}, {2, 0.1, 1.2}, {3, 0.1, 1.2}, {4, 0.1, 1.2}}, true, 10e6);
  run.localJson = localJson({{1, "trainer0", 1e9, 18e7},
                             {2, "trainer1", 1e8, 18e7},
                             {3, "trainer2", 1e9, 18e7},
                             {4, "trainer3", 1e9, 18e7}},
                            "bandwidth=1gbit;rank2=100mbit");
  const std::string html = whySection(run).html;
  EXPECT_TRUE(contains(html, "<td>trainer1 (rank 2) at 100mbit, the others 1gbit: link counters:"))
      << html;
  EXPECT_TRUE(contains(html, "if trainer1&#39;s link ran as fast as the others")) << html;
}

TEST(WhySection, CollectivesSayTheyAreCommunicationByDefinition) {
  const std::string html = whySection(collectivesAttributionReport()).html;
  EXPECT_TRUE(contains(html, "communication-bound by definition")) << html;
  EXPECT_TRUE(contains(html, "<td>1048576</td><td>communication-bound</td>")) << html;
}

TEST(WhySection, AReportWithoutPerRankTimingsSaysWhatItCouldNotJudge) {
  // A real run from before rows[].perRank: bound from the pooled phases.
  const std::string html = whySection(fixture("ddp-smallcnn.json")).html;
  EXPECT_TRUE(contains(html, "<td>1M/2R</td>")) << html;
  EXPECT_TRUE(contains(html, "no per-rank timings in this report")) << html;
}

TEST(WhySection, SitsBetweenTheChartsAndTheMeasurements) {
  const report::Report run = stragglerRun();
  ReportPageInput input;
  input.run = &run;
  input.runSource = "run.json";
  const std::string page = renderReportPage(input, {});
  EXPECT_TRUE(contains(page, "<a href=\"#why\">Why</a>"));
  const size_t charts = page.find("<section id=\"ddp\"");
  const size_t why = page.find("<section id=\"why\">");
  const size_t measurements = page.find("<section id=\"measurements\">");
  ASSERT_NE(why, std::string::npos);
  EXPECT_LT(charts, why);
  EXPECT_LT(why, measurements);
}

TEST(WhySection, ReportTextIsEscaped) {
  report::Report run = stragglerRun();
  for (report::Series& s : run.series) s.group = "</td><script>alert(1)</script>";
  const std::string html = whySection(run).html;
  EXPECT_FALSE(contains(html, "<script>")) << html;
  EXPECT_TRUE(contains(html, "&lt;script&gt;")) << html;
}

}  // namespace
}  // namespace distbench::cli
