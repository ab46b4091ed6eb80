#include "distbench/cli/local_run/progress_display.h"

#include <gtest/gtest.h>

namespace distbench::cli {
namespace {

TEST(ParseProgressLine, ReadsEpochAndTotal) {
  auto progress = parseProgressLine("@@distbench-progress epoch=12 total=105");
  ASSERT_TRUE(progress.has_value());
  EXPECT_EQ(progress->epoch, 12);
  EXPECT_EQ(progress->total, 105);
}

TEST(ParseProgressLine, FieldOrderAndExtraFieldsDoNotMatter) {
  auto progress = parseProgressLine("@@distbench-progress  total=5 phase=warmup epoch=0");
  ASSERT_TRUE(progress.has_value());
  EXPECT_EQ(progress->epoch, 0);
  EXPECT_EQ(progress->total, 5);
}

TEST(ParseProgressLine, OrdinaryLogLinesAreNotProgress) {
  EXPECT_FALSE(parseProgressLine("epoch=1 total=2"));
  EXPECT_FALSE(parseProgressLine(""));
  EXPECT_FALSE(parseProgressLine("[trainer0] @@distbench-progress epoch=1 total=2"));
  EXPECT_FALSE(parseProgressLine("@@distbench-progressive epoch=1 total=2"));
}

TEST(ParseProgressLine, MalformedProgressIsRejected) {
  EXPECT_FALSE(parseProgressLine("@@distbench-progress"));
  EXPECT_FALSE(parseProgressLine("@@distbench-progress epoch=1"));
  EXPECT_FALSE(parseProgressLine("@@distbench-progress total=3"));
  EXPECT_FALSE(parseProgressLine("@@distbench-progress epoch=x total=3"));
  EXPECT_FALSE(parseProgressLine("@@distbench-progress epoch=-1 total=3"));
  EXPECT_FALSE(parseProgressLine("@@distbench-progress epoch=1 total="));
  EXPECT_FALSE(parseProgressLine("@@distbench-progress epoch 1 total 3"));
}

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

TEST(ProgressBoard, EmptyBoardHasNoStatus) {
  ProgressBoard board;
  EXPECT_TRUE(board.empty());
  EXPECT_EQ(board.statusLine(80), "");
}

}  // namespace
}  // namespace distbench::cli
