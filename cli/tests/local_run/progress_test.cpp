#include "distbench/cli/local_run/progress_display.h"

#include <gtest/gtest.h>

namespace distbench::cli {
namespace {

TEST(ProgressBoard, StatusLineListsRanksInRankOrder) {
  ProgressBoard board;
  board.update(4, "trainer1", {11, 105});
  board.update(3, "trainer0", {12, 105});
  EXPECT_EQ(board.statusLine(200), "epochs  trainer0 12/105  trainer1 11/105");
  board.update(4, "trainer1", {13, 105});
  EXPECT_EQ(board.statusLine(200), "epochs  trainer0 12/105  trainer1 13/105");
}

TEST(ProgressBoard, NarrowTerminalGetsASummaryThatFits) {
  ProgressBoard board;
  for (int i = 0; i < 8; ++i) {
    board.update(9 + i, "trainer" + std::to_string(i), {i == 5 ? 3 : 10, 105});
  }
  std::string line = board.statusLine(79);
  EXPECT_LE(line.size(), 79u);
  EXPECT_NE(line.find("slowest trainer5 3/105"), std::string::npos) << line;
  EXPECT_LE(board.statusLine(20).size(), 20u);
}

TEST(ProgressBoard, StatusLineSaysWhatIsCounted) {
  ProgressBoard board;
  board.update(1, "trainer0", {40, 400, "iterations"});
  EXPECT_EQ(board.statusLine(200), "iterations  trainer0 40/400");
}

TEST(ProgressBoard, EmptyBoardHasNoStatus) {
  ProgressBoard board;
  EXPECT_TRUE(board.empty());
  EXPECT_EQ(board.statusLine(80), "");
}

}  // namespace
}  // namespace distbench::cli
