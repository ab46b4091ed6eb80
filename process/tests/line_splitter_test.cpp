#include "distbench/process/line_splitter.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace distbench::process {
namespace {

class LineSplitterTest : public ::testing::Test {
 protected:
  void feed(std::string_view data) {
    splitter.feed(data, [&](std::string_view line) { lines.emplace_back(line); });
  }
  void finish() {
    splitter.finish([&](std::string_view line) { lines.emplace_back(line); });
  }

  LineSplitter splitter;
  std::vector<std::string> lines;
};

TEST_F(LineSplitterTest, WholeLinesComeOutWithoutNewline) {
  feed("one\ntwo\n");
  EXPECT_EQ(lines, (std::vector<std::string>{"one", "two"}));
  EXPECT_FALSE(splitter.hasPartialLine());
}

TEST_F(LineSplitterTest, PartialLineWaitsForItsNewline) {
  feed("hel");
  EXPECT_TRUE(lines.empty());
  EXPECT_TRUE(splitter.hasPartialLine());
  feed("lo wor");
  EXPECT_TRUE(lines.empty());
  feed("ld\nnext");
  EXPECT_EQ(lines, (std::vector<std::string>{"hello world"}));
  feed("\n");
  EXPECT_EQ(lines, (std::vector<std::string>{"hello world", "next"}));
}

TEST_F(LineSplitterTest, EmptyLinesAreKept) {
  feed("\n\na\n\n");
  EXPECT_EQ(lines, (std::vector<std::string>{"", "", "a", ""}));
}

TEST_F(LineSplitterTest, CrLfLosesBothCharacters) {
  feed("dos line\r\nunix line\n");
  EXPECT_EQ(lines, (std::vector<std::string>{"dos line", "unix line"}));
}

TEST_F(LineSplitterTest, CrLfSplitAcrossReads) {
  feed("split\r");
  EXPECT_TRUE(lines.empty());
  feed("\nafter\n");
  EXPECT_EQ(lines, (std::vector<std::string>{"split", "after"}));
}

TEST_F(LineSplitterTest, CarriageReturnInsideALineStays) {
  feed("a\rb\n");
  EXPECT_EQ(lines, (std::vector<std::string>{"a\rb"}));
}

TEST_F(LineSplitterTest, FinishHandsOnTheUnterminatedLastLine) {
  feed("first\nlast words");
  EXPECT_EQ(lines, (std::vector<std::string>{"first"}));
  finish();
  EXPECT_EQ(lines, (std::vector<std::string>{"first", "last words"}));
  EXPECT_FALSE(splitter.hasPartialLine());
  finish();
  EXPECT_EQ(lines.size(), 2u) << "a second finish must not repeat the line";
}

TEST_F(LineSplitterTest, FinishAfterCompleteLinesAddsNothing) {
  feed("done\n");
  finish();
  EXPECT_EQ(lines, (std::vector<std::string>{"done"}));
}

TEST_F(LineSplitterTest, FinishStripsATrailingCarriageReturn) {
  feed("no newline\r");
  finish();
  EXPECT_EQ(lines, (std::vector<std::string>{"no newline"}));
}

TEST(LineSplitterLimit, OverlongLineComesOutInPieces) {
  LineSplitter splitter(4);
  std::vector<std::string> lines;
  auto collect = [&](std::string_view line) { lines.emplace_back(line); };
  splitter.feed("abcdefghij", collect);
  EXPECT_EQ(lines, (std::vector<std::string>{"abcd", "efgh"}));
  splitter.feed("\n", collect);
  EXPECT_EQ(lines, (std::vector<std::string>{"abcd", "efgh", "ij"}));
}

}  // namespace
}  // namespace distbench::process
