// What a rank's pod says, as the kubelet leaves it, and what the controller
// makes of it against the real API server: an exit code 2 is a refusal that
// ends the run at once (RankRefused) instead of restarting the gang; a
// result summary status cannot carry is refused and the run still ends; a
// run key in a rank's last log line reaches neither status nor Events.
#include "support/controller_test_fixture.h"

namespace distbench::op {
namespace {

// A suite of its own: the fixture is defined per translation unit.
class PodWordsTest : public ControllerTest {};

TEST_F(PodWordsTest, ARefusedRankFailsTheRunAtOnce) {
  startController();
  value spec = value::object();
  spec["runPolicy"]["backoffLimit"] = value::number(3);
  createBenchmark("refused", spec);
  ASSERT_TRUE(eventually([&] { return podsAre("refused", 4, "0"); }));
  allRunning("refused");
  ASSERT_TRUE(benchmarkWhere("refused", [](const value& b) {
    return str(b, {"status", "phase"}) == "Running";
  })) << last_.serialize();
  const std::string why =
      "distbench-worker trainer0: trainer0 (rank 2) cannot run: spec.runtime.device: cuda, but "
      "trainer0 sees no GPU on this node";
  setPod("refused-trainer-0", "Failed", 2, "trainer0 (rank 2): checked in\n" + why + "\n");
  ASSERT_TRUE(benchmarkWhere("refused", [](const value& b) {
    return str(b, {"status", "phase"}) == "Failed";
  })) << last_.serialize();
  EXPECT_EQ(condition(last_, "Failed")->at("reason").as_string(), "RankRefused");
  EXPECT_TRUE(conditionTrue(last_, "RankRefused"));
  EXPECT_FALSE(conditionTrue(last_, "BackoffLimitExceeded"));
  EXPECT_EQ(str(last_, {"status", "restartCount"}), "0");
  const std::string message = str(last_, {"status", "message"});
  EXPECT_NE(message.find("refused-trainer-0 (rank 2): exit code 2"), std::string::npos) << message;
  EXPECT_NE(message.find(why), std::string::npos) << message;
  EXPECT_TRUE(eventually([&] { return sawEvent("Warning RankRefused: refused-trainer-0"); }));
  // No second gang.
  std::this_thread::sleep_for(1s);
  for (const value& p : podsOf("refused"))
    EXPECT_EQ(str(p, {"metadata", "labels", kLabelGang}), "0");
}

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

// LibTorch 2.x names the store keys a timed-out wait was for; they start
// with the run key, and a rank of an image that does not redact it prints
// the line last. Anyone who may read the benchmark reads status and Events.
TEST_F(PodWordsTest, ARunKeyInARanksLastLineReachesNeitherStatusNorEvents) {
  startController();
  value spec = value::object();
  spec["runPolicy"]["backoffLimit"] = value::number(0);
  createBenchmark("keyed", spec);
  ASSERT_TRUE(eventually([&] { return podsAre("keyed", 4); }));
  allRunning("keyed");
  const std::string key = "0123456789abcdef0123456789abcdef";
  setPod("keyed-trainer-1", "Failed", 1,
         "distbench-worker trainer1: error: forming the all ranks group: wait timeout after "
         "3000ms, keys: /run-" +
             key + "/global/0/3\n");
  ASSERT_TRUE(benchmarkWhere("keyed", [](const value& b) {
    return str(b, {"status", "phase"}) == "Failed";
  })) << last_.serialize();
  ASSERT_TRUE(eventually([&] { return sawEvent("Warning BackoffLimitExceeded"); }));
  const std::string written = last_.at("status").serialize();
  EXPECT_EQ(written.find(key.substr(0, 8)), std::string::npos) << written;
  EXPECT_NE(written.find("keys: /run-<run-key>/global/0/3"), std::string::npos) << written;
  std::lock_guard<std::mutex> lock(eventsMutex_);
  for (const std::string& e : events_) EXPECT_EQ(e.find(key.substr(0, 8)), std::string::npos) << e;
}

}  // namespace
}  // namespace distbench::op
