// What a rank's pod says, as the kubelet leaves it, and what the controller
// makes of it against the real API server: a result summary status cannot
// carry is refused and the run still ends.
#include "controller_test_fixture.h"

namespace distbench::op {
namespace {

// A suite of its own: the fixture is defined per translation unit.
class PodWordsTest : public ControllerTest {};

// A master image that writes a number JSON cannot carry: 1e999 reads as
// infinity, and a status holding it is a request the API server refuses on
// every retry, so the run would stay Running for good.
TEST_F(PodWordsTest, AnInfiniteResultSummaryStillEndsTheRun) {
  startController();
  createBenchmark("inf");
  ASSERT_TRUE(eventually([&] { return podsAre("inf", 4); }));
  allRunning("inf");
  setPod("inf-trainer-0", "Succeeded");
  setPod("inf-trainer-1", "Succeeded");
  setPod("inf-master-0", "Succeeded", 0, R"({"p50":1e999,"rows":[]})");
  ASSERT_TRUE(benchmarkWhere("inf", [](const value& b) {
    return str(b, {"status", "phase"}) == "Succeeded";
  })) << last_.serialize();
  EXPECT_FALSE(last_.at("status").has_field("results")) << last_.serialize();
  EXPECT_TRUE(eventually([&] { return sawEvent("Warning ResultsRefused"); }));
  EXPECT_TRUE(sawEvent("p50: not a finite number"));
}

}  // namespace
}  // namespace distbench::op
