#include "distbench/worker/common/result_table.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace distbench::worker {
namespace {

// Rows printed by the seed's own format strings
// ("%8s:" + "  p%02d:  %1.3fs  %6d/s") over numpy.percentile.
TEST(ResultTable, RowsMatchTheSeedFormat) {
  std::vector<double> t0{0.376, 0.384, 0.390, 0.396, 0.377, 0.401,
                         0.369, 0.512, 0.388, 0.379, 0.381};
  std::vector<double> t1{0.5, 0.25, 1.5, 0.75};
  EXPECT_EQ(formatTableRow("Trainer0", 70, t0),
            "Trainer0:  p50:  0.384s     182/s  p75:  0.393s     178/s  p90:  0.401s     174/s"
            "  p95:  0.457s     153/s\n");
  EXPECT_EQ(formatTableRow("Trainer1", 33.5, t1),
            "Trainer1:  p50:  0.625s      53/s  p75:  0.938s      35/s  p90:  1.275s      26/s"
            "  p95:  1.387s      24/s\n");
}

TEST(ResultTable, AllRowPoolsSamplesAndSumsExamples) {
  std::vector<TrainerResult> trainers{
      {"Trainer0",
       3,
       70,
       {0.376, 0.384, 0.390, 0.396, 0.377, 0.401, 0.369, 0.512, 0.388, 0.379, 0.381}},
      {"Trainer1", 4, 33.5, {0.5, 0.25, 1.5, 0.75}},
  };
  const std::string table = formatResultTable(trainers);
  const std::string header =
      "              sec/epoch examples/s    sec/epoch examples/s    sec/epoch examples/s"
      "    sec/epoch examples/s\n";
  EXPECT_EQ(table.substr(0, header.size()), header);
  const std::string all =
      "     All:  p50:  0.388s     266/s  p75:  0.451s     229/s  p90:  0.655s     158/s"
      "  p95:  0.975s     106/s\n";
  ASSERT_GE(table.size(), all.size());
  EXPECT_EQ(table.substr(table.size() - all.size()), all);
  // Header, two trainers, All.
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 4);
}

TEST(ResultTable, SecondsColumnLinesUpWithItsHeader) {
  const std::string header = formatTableHeader();
  const std::string row = formatTableRow("Trainer0", 70, {0.376});
  // The seed pads the header's prefix to 10 but rows to "%8s:" (9); the
  // header block is shifted so "sec/epoch" ends where the seconds end.
  EXPECT_EQ(header.find("sec/epoch") + 9, row.find("0.376s") + 6);
  EXPECT_EQ(header.size(), row.size() + 1);
}

}  // namespace
}  // namespace distbench::worker
