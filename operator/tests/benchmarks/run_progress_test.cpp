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

TEST(RunProgress, TheSameLineOfTheSameGangIsNotWrittenAgain) {
  value status = value::object();
  EXPECT_FALSE(saysProgress(status, {1, 4, "epochs"}, 0));
  status["progress"] = progressStatus({1, 4, "epochs"}, 0, "2026-11-29T01:00:00Z");
  EXPECT_TRUE(saysProgress(status, {1, 4, "epochs"}, 0));
  EXPECT_FALSE(saysProgress(status, {2, 4, "epochs"}, 0));
  EXPECT_FALSE(saysProgress(status, {1, 4, "epochs"}, 1)) << "another gang";
  EXPECT_FALSE(saysProgress(status, {1, 4, "steps"}, 0));
}

TEST(RunProgress, TheLogQueryIsBounded) {
  EXPECT_EQ(progressLogQuery(), "container=worker&tailLines=200&limitBytes=65536");
}

}  // namespace
}  // namespace distbench::op
