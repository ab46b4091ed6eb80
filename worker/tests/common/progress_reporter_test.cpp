#include "distbench/worker/common/progress_reporter.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace distbench::worker {
namespace {

struct Lines {
  std::vector<std::string> lines;
  ProgressReporter::Sink sink() {
    return [this](const std::string& line) { lines.push_back(line); };
  }
};

TEST(ProgressReporter, PrintsTheFirstStepsAndTheLastAndAtMostOneAnInterval) {
  Lines out;
  ProgressReporter progress(true, "iterations", 1000, out.sink(), std::chrono::hours(1));
  progress.advance(0);
  for (int i = 0; i < 1000; ++i) progress.advance();
  ASSERT_EQ(out.lines.size(), 5u);
  EXPECT_EQ(out.lines[0], "@@distbench-progress done=0 total=1000 unit=iterations\n");
  EXPECT_EQ(out.lines[3], "@@distbench-progress done=3 total=1000 unit=iterations\n");
  EXPECT_EQ(out.lines[4], "@@distbench-progress done=1000 total=1000 unit=iterations\n");
}

TEST(ProgressReporter, WithoutAnIntervalEveryChangeIsALineAndNoneTwice) {
  Lines out;
  ProgressReporter progress(true, "rounds", 3, out.sink(), std::chrono::milliseconds(0));
  progress.advance(0);
  progress.advance(0);
  progress.advance(2);
  progress.advance(5);  // past the total: held at it
  progress.finish();
  ASSERT_EQ(out.lines.size(), 3u);
  EXPECT_EQ(out.lines[0], "@@distbench-progress done=0 total=3 unit=rounds\n");
  EXPECT_EQ(out.lines[1], "@@distbench-progress done=2 total=3 unit=rounds\n");
  EXPECT_EQ(out.lines[2], "@@distbench-progress done=3 total=3 unit=rounds\n");
  EXPECT_EQ(progress.done(), 3);
}

TEST(ProgressReporter, FinishReachesTheTotalOfALoopThatEndedEarly) {
  Lines out;
  ProgressReporter progress(true, "rounds", 10, out.sink(), std::chrono::hours(1));
  progress.advance(4);
  progress.advance(1);  // within the interval: not printed
  progress.finish();
  ASSERT_EQ(out.lines.size(), 2u);
  EXPECT_EQ(out.lines[0], "@@distbench-progress done=4 total=10 unit=rounds\n");
  EXPECT_EQ(out.lines[1], "@@distbench-progress done=10 total=10 unit=rounds\n");
}

TEST(ProgressReporter, AStepBegunIsCountedWhenTheNextBeginsOrItEnds) {
  Lines out;
  ProgressReporter progress(true, "iterations", 4, out.sink(), std::chrono::milliseconds(0));
  progress.beginStep();
  EXPECT_EQ(progress.done(), 0) << "the first is under way";
  progress.beginStep();
  progress.beginStep();
  EXPECT_EQ(progress.done(), 2);
  progress.endStep();
  progress.endStep();  // nothing begun since
  EXPECT_EQ(progress.done(), 3);
  progress.beginStep();
  progress.finish();
  EXPECT_EQ(progress.done(), 4);
  ASSERT_EQ(out.lines.size(), 5u);
  EXPECT_EQ(out.lines[0], "@@distbench-progress done=0 total=4 unit=iterations\n");
  EXPECT_EQ(out.lines[4], "@@distbench-progress done=4 total=4 unit=iterations\n");
}

TEST(ProgressReporter, DisabledPrintsNothingButCounts) {
  Lines out;
  ProgressReporter progress(false, "epochs", 5, out.sink());
  progress.advance(3);
  progress.finish();
  EXPECT_TRUE(out.lines.empty());
  EXPECT_EQ(progress.done(), 5);
}

}  // namespace
}  // namespace distbench::worker
