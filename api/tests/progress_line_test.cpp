#include "distbench/api/progress_line.h"

#include <gtest/gtest.h>

namespace distbench::api {
namespace {

TEST(ParseProgressLine, ReadsEpochAndTotal) {
  auto progress = parseProgressLine("@@distbench-progress epoch=12 total=105");
  ASSERT_TRUE(progress.has_value());
  EXPECT_EQ(progress->done, 12);
  EXPECT_EQ(progress->total, 105);
}

TEST(ParseProgressLine, FieldOrderAndExtraFieldsDoNotMatter) {
  auto progress = parseProgressLine("@@distbench-progress  total=5 phase=warmup epoch=0");
  ASSERT_TRUE(progress.has_value());
  EXPECT_EQ(progress->done, 0);
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

TEST(ParseProgressLine, ReadsTheUnit) {
  auto progress = parseProgressLine("@@distbench-progress done=40 total=400 unit=iterations");
  ASSERT_TRUE(progress.has_value());
  EXPECT_EQ(*progress, (Progress{40, 400, "iterations"}));
  EXPECT_EQ(parseProgressLine("@@distbench-progress done=1 total=2")->unit, "epochs");
}

TEST(ParseProgressLine, RejectsAUnitThatIsNotAWordAndDoneBeyondTotal) {
  EXPECT_FALSE(parseProgressLine("@@distbench-progress done=1 total=2 unit="));
  EXPECT_FALSE(parseProgressLine("@@distbench-progress done=1 total=2 unit=Rows"));
  EXPECT_FALSE(parseProgressLine("@@distbench-progress done=1 total=2 unit=a<b>"));
  EXPECT_FALSE(parseProgressLine("@@distbench-progress done=3 total=2"));
}

TEST(FormatProgressLine, IsReadBackAsWritten) {
  const Progress p{7, 12, "rounds"};
  const std::string line = formatProgressLine(p);
  ASSERT_EQ(line.back(), '\n');
  EXPECT_EQ(parseProgressLine(std::string_view(line).substr(0, line.size() - 1)), p);
}

TEST(LastProgress, TakesTheLastWellFormedLineOfALog) {
  const std::string log =
      "trainer0: joined\n"
      "@@distbench-progress done=1 total=4 unit=rounds\n"
      "@@distbench-progress done=2 total=4 unit=rounds\r\n"
      "@@distbench-progress done=9 total=4 unit=rounds\n"
      "trainer0: still going\n"
      "@@distbench-progress done=3 total=4 unit=rou";
  EXPECT_EQ(lastProgress(log), (Progress{2, 4, "rounds"}));
  EXPECT_FALSE(lastProgress("no progress here\n").has_value());
  EXPECT_FALSE(lastProgress("").has_value());
}

}  // namespace
}  // namespace distbench::api
