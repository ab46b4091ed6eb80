// status.progress against the real API server: the operator reads trainer
// 0's log (pods/log, proxied to fake_kubelet_logs.py on a Node of the
// test's own) while the run is Running, and writes the last progress line
// it finds, across a gang restart and up to Succeeded.
#include <thread>

#include "distbench/api/progress_line.h"
#include "support/controller_test_fixture.h"
#include "support/fake_kubelet.h"

namespace distbench::op {
namespace {

class ProgressTest : public ControllerTest {
 protected:
  void TearDown() override {
    ControllerTest::TearDown();
    kubelet_.reset();
  }

  void startKubelet() {
    ASSERT_NO_THROW(kubelet_ = std::make_unique<kubetest::FakeKubelet>(
                        *client_, *cluster_, dir_->path(), "progress-" + ns_));
  }

  // Trainer 0's log so far: a line of its own, then progress lines.
  void trainerZeroPrinted(const std::string& name, const std::vector<api::Progress>& lines) {
    std::string log = "trainer0: joined the gang\n";
    for (const api::Progress& p : lines) log += api::formatProgressLine(p) + "trainer0: ok\n";
    kubelet_->writeLog(ns_, name + "-trainer-0", log);
  }

  static bool progressIs(const value& b, const std::string& unit, int done, int total, int gang) {
    return str(b, {"status", "progress", "unit"}) == unit &&
           str(b, {"status", "progress", "done"}) == std::to_string(done) &&
           str(b, {"status", "progress", "total"}) == std::to_string(total) &&
           str(b, {"status", "progress", "gang"}) == std::to_string(gang);
  }

  std::unique_ptr<kubetest::FakeKubelet> kubelet_;
};

TEST_F(ProgressTest, FollowsTrainerZerosLinesAcrossARestartToTheEnd) {
  startKubelet();
  if (HasFatalFailure()) return;
  progressInterval_ = std::chrono::seconds(1);
  startController();
  value spec = value::object();
  spec["runPolicy"]["backoffLimit"] = value::number(1);
  createBenchmark("prog", spec);
  ASSERT_TRUE(eventually([&] { return podsAre("prog", 4, "0"); }));
  // Only trainer 0 is read, so only it needs a node with a kubelet.
  kubelet_->bind(ns_, "prog-trainer-0");
  trainerZeroPrinted("prog", {{0, 10, "epochs"}, {3, 10, "epochs"}});
  allRunning("prog");
  ASSERT_TRUE(benchmarkWhere("prog", [](const value& b) {
    return progressIs(b, "epochs", 3, 10, 0);
  })) << last_.serialize();
  const std::string firstSeen = str(last_, {"status", "progress", "observedTime"});
  EXPECT_FALSE(firstSeen.empty());

  trainerZeroPrinted("prog", {{0, 10, "epochs"}, {3, 10, "epochs"}, {7, 10, "epochs"}});
  ASSERT_TRUE(benchmarkWhere("prog", [](const value& b) {
    return progressIs(b, "epochs", 7, 10, 0);
  })) << last_.serialize();

  // A new gang starts from nothing: the old gang's progress goes.
  setPod("prog-trainer-1", "Failed", 1, "allreduce: peer closed");
  ASSERT_TRUE(benchmarkWhere("prog", [](const value& b) {
    return str(b, {"status", "restartCount"}) == "1" && !b.at("status").has_field("progress");
  })) << last_.serialize();
  // No kubelet confirms the bound pod's end: removed at once, as a kubelet would.
  client_->remove(kube::corePath(ns_, "pods", "prog-trainer-0"), kube::DeleteOptions{0, ""});
  ASSERT_TRUE(eventually([&] { return podsAre("prog", 4, "1"); }));
  kubelet_->bind(ns_, "prog-trainer-0");
  trainerZeroPrinted("prog", {{2, 10, "epochs"}});
  allRunning("prog");
  ASSERT_TRUE(benchmarkWhere("prog", [](const value& b) {
    return progressIs(b, "epochs", 2, 10, 1);
  })) << last_.serialize();

  // Every trainer finished: all is done, whatever the last read saw.
  setPod("prog-trainer-0", "Succeeded");
  setPod("prog-trainer-1", "Succeeded");
  setPod("prog-master-0", "Succeeded", 0, R"({"kind":"HybridDDPRPC","p50":"0.376s"})");
  ASSERT_TRUE(benchmarkWhere("prog", [](const value& b) {
    return str(b, {"status", "phase"}) == "Succeeded" && progressIs(b, "epochs", 10, 10, 1);
  })) << last_.serialize();
}

TEST_F(ProgressTest, ZeroIntervalReadsNoLog) {
  startKubelet();
  if (HasFatalFailure()) return;
  progressInterval_ = std::chrono::seconds(0);
  startController();
  createBenchmark("quiet");
  ASSERT_TRUE(eventually([&] { return podsAre("quiet", 4, "0"); }));
  kubelet_->bind(ns_, "quiet-trainer-0");
  trainerZeroPrinted("quiet", {{5, 10, "epochs"}});
  allRunning("quiet");
  ASSERT_TRUE(benchmarkWhere("quiet", [](const value& b) {
    return str(b, {"status", "phase"}) == "Running";
  }));
  // A read would have come in the reconcile that wrote Running; the
  // kubelet logs each request it serves, and none came.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  EXPECT_EQ(kubelet_->processLog().find("quiet-trainer-0"), std::string::npos)
      << kubelet_->processLog();
  EXPECT_FALSE(getBenchmark("quiet").at("status").has_field("progress"));
  client_->remove(kube::corePath(ns_, "pods", "quiet-trainer-0"), kube::DeleteOptions{0, ""});
}

}  // namespace
}  // namespace distbench::op
