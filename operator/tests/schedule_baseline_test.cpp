// What a schedule keeps of a run's report: its row names reach the
// schedule's status cut to a bound.
#include "distbench/operator/schedule_baseline.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "distbench/operator/schedule_row_name.h"
#include "distbench/report/report_json.h"

namespace distbench::op {
namespace {

using web::json::value;

report::Report tutorial() {
  std::ifstream in(std::string(DISTBENCH_REPORT_FIXTURES) + "/report/tutorial-run.json");
  return report::parseReport(
      std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
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
