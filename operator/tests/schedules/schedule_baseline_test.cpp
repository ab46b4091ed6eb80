// A schedule's pool as its ConfigMap holds it: it always fits a ConfigMap,
// whatever the size of one run's report, and the report's row names reach
// the schedule's status cut to a bound.
#include "distbench/operator/schedules/schedule_baseline.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "distbench/operator/schedules/schedule_row_name.h"
#include "distbench/report/report_json.h"

namespace distbench::op {
namespace {

using web::json::value;

report::Report tutorial() {
  std::ifstream in(std::string(DISTBENCH_REPORT_FIXTURES) + "/report/tutorial-run.json");
  return report::parseReport(
      std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
}

// The tutorial run with its samples repeated until the report, trimmed for
// the pool, is over `bytes`.
report::Report reportOver(std::size_t bytes) {
  report::Report r = tutorial();
  const report::Report one = r;
  while (report::toJson(report::trimmedForBaseline(r)).size() <= bytes)
    for (std::size_t i = 0; i < r.series.size(); ++i)
      r.series[i].samples.insert(r.series[i].samples.end(), one.series[i].samples.begin(),
                                 one.series[i].samples.end());
  return r;
}

std::size_t dataBytes(const value& data) {
  std::size_t n = 0;
  for (const auto& [k, v] : data.as_object()) n += k.size() + v.as_string().size();
  return n;
}

TEST(ScheduleBaselineTest, ARunTooLargeToPoolEvenAloneIsRefusedNamingTheBytes) {
  // Under what the report store takes (900 KiB), over half a ConfigMap:
  // runs.json and baseline.json would each hold it.
  const report::Report big = reportOver(600 * 1024);
  ASSERT_LT(report::toJson(big).size(), kMaxStoredReportBytes);
  std::vector<report::PooledRun> pool = {{"big", report::trimmedForBaseline(big)}};
  const PoolData data = poolData(pool);
  EXPECT_FALSE(data.data);
  EXPECT_GT(data.bytes, kMaxPoolDataBytes);
  EXPECT_GT(data.bytes, 2 * 600 * 1024u);
}

TEST(ScheduleBaselineTest, ThePoolDataNeverHoldsMoreThanAConfigMapTakes) {
  const report::Report small = report::trimmedForBaseline(tutorial());
  const report::Report large = report::trimmedForBaseline(reportOver(200 * 1024));
  // Three large runs do not fit together; the oldest are left out.
  std::vector<report::PooledRun> pool = {{"a", large}, {"b", large}, {"c", large}};
  PoolData data = poolData(pool);
  ASSERT_TRUE(data.data);
  EXPECT_LE(dataBytes(*data.data), kMaxPoolDataBytes);
  EXPECT_EQ(data.bytes, dataBytes(*data.data));
  ASSERT_EQ(pool.size(), 2u);
  EXPECT_EQ(pool[0].name, "b");
  EXPECT_EQ(pool[1].name, "c");

  // A pool that fits is kept whole; an empty one has runs.json only.
  std::vector<report::PooledRun> three = {{"a", small}, {"b", small}, {"c", small}};
  data = poolData(three);
  ASSERT_TRUE(data.data);
  EXPECT_EQ(three.size(), 3u);
  EXPECT_TRUE(data.data->has_field(kPoolBaselineKey));
  std::vector<report::PooledRun> none;
  data = poolData(none);
  ASSERT_TRUE(data.data);
  EXPECT_EQ(data.data->as_object().size(), 1u);
}

TEST(ScheduleBaselineTest, RowNamesAreCutToABoundAndStayApart) {
  struct Case {
    std::string name;
    bool cut;
  };
  const std::string fits(kMaxRowNameBytes, 'r');
  const std::vector<Case> cases = {
      {"All", false},
      {"", false},
      {fits, false},
      {fits + "x", true},
      {std::string(5000, 'g'), true},
      // "é" is two bytes: the cut never splits it.
      {std::string(kMaxRowNameBytes - 10, 'r') + "éééééééééé", true},
  };
  for (const Case& c : cases) {
    const std::string got = boundedRowName(c.name);
    EXPECT_LE(got.size(), kMaxRowNameBytes) << c.name;
    if (!c.cut) {
      EXPECT_EQ(got, c.name);
      continue;
    }
    EXPECT_GT(got.size(), kMaxRowNameBytes - 4) << got;
    EXPECT_EQ(got.substr(got.size() - 9, 1), "~") << got;
    EXPECT_EQ(got.rfind(c.name.substr(0, 64), 0), 0u) << got;
    // Valid UTF-8: no lone continuation byte before the marker.
    const unsigned char before = static_cast<unsigned char>(got[got.size() - 10]);
    EXPECT_FALSE(before == 0xC3) << got;
    EXPECT_EQ(boundedRowName(c.name), got);  // the same cut every time
  }
  // Two long names that share their first bytes stay two rows.
  EXPECT_NE(boundedRowName(fits + "a"), boundedRowName(fits + "b"));

  report::Report r = tutorial();
  r.series[0].group = std::string(300, 'G');
  r.series[0].row = std::string(300, 'R');
  const value rows = rowSummaries(r, nullptr, 64);
  ASSERT_GT(rows.size(), 0u);
  EXPECT_EQ(rows.at(0).at("group").as_string(), boundedRowName(std::string(300, 'G')));
  EXPECT_EQ(rows.at(0).at("row").as_string().size(), kMaxRowNameBytes);
}

}  // namespace
}  // namespace distbench::op
