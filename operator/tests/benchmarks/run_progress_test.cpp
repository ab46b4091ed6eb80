#include "distbench/operator/benchmarks/run_progress.h"

#include <gtest/gtest.h>

namespace distbench::op {
namespace {

using web::json::value;

TEST(RunProgress, StatusCarriesTheLineTheGangAndWhenItWasSeen) {
  const value p = progressStatus({40, 100, "iterations"}, 2, "2026-11-29T01:00:00Z");
  EXPECT_EQ(p.serialize(), R"({"unit":"iterations","done":40,"total":100,"gang":2,)"
                           R"("observedTime":"2026-11-29T01:00:00Z"})");
}

TEST(RunProgress, OnlyProgressThatMovedIsWritten) {
  value status = value::object();
  EXPECT_TRUE(progressMoved(status, {1, 4, "epochs"}, 0)) << "none yet";
  status["progress"] = progressStatus({2, 4, "epochs"}, 0, "2026-11-29T01:00:00Z");
  EXPECT_FALSE(progressMoved(status, {2, 4, "epochs"}, 0)) << "the same line";
  EXPECT_FALSE(progressMoved(status, {1, 4, "epochs"}, 0)) << "an older line: never back";
  EXPECT_TRUE(progressMoved(status, {3, 4, "epochs"}, 0));
  EXPECT_TRUE(progressMoved(status, {1, 4, "epochs"}, 1)) << "another gang";
  EXPECT_TRUE(progressMoved(status, {1, 9, "steps"}, 0)) << "another count";
}

}  // namespace
}  // namespace distbench::op
