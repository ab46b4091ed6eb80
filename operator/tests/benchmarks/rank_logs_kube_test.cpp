// What the operator reads of a gang's logs, against the real API server
// (pods/log, proxied to fake_kubelet_logs.py on a Node of the test's own):
// trainer 0's last progress line into status.progress while the run is
// Running, and the last lines of the ranks that failed a gang into
// <name>-logs before the gang goes.
#include <algorithm>
#include <thread>

#include "distbench/api/object_names.h"
#include "distbench/api/progress_line.h"
#include "support/kubelet_controller_test.h"

namespace distbench::op {
namespace {

class RankLogsTest : public KubeletControllerTest {
 protected:
  void startKubelet() { KubeletControllerTest::startKubelet("logs"); }

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

  value keptLogs(const std::string& name) {
    return client_->get(kube::corePath(ns_, "configmaps", api::rankLogsConfigMapName(name)));
  }
};

TEST_F(RankLogsTest, FollowsTrainerZerosLinesAcrossARestartToTheEnd) {
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

TEST_F(RankLogsTest, ZeroIntervalReadsNoLog) {
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

TEST_F(RankLogsTest, AFailedRanksLastLinesOutliveItsGang) {
  startKubelet();
  if (HasFatalFailure()) return;
  startController();
  value spec = value::object();
  spec["runPolicy"]["backoffLimit"] = value::number(1);
  spec["runPolicy"]["cleanPodPolicy"] = value::string("All");
  createBenchmark("kept", spec);
  ASSERT_TRUE(eventually([&] { return podsAre("kept", 4, "0"); }));
  kubelet_->bind(ns_, "kept-trainer-1");
  std::string log;
  for (int i = 0; i < 150; ++i) log += "trainer1: step " + std::to_string(i) + "\n";
  log += "trainer1: allreduce: peer closed\n";
  kubelet_->writeLog(ns_, "kept-trainer-1", log);
  allRunning("kept");
  ASSERT_TRUE(benchmarkWhere("kept", [](const value& b) {
    return str(b, {"status", "phase"}) == "Running";
  }));

  setPod("kept-trainer-1", "Failed", 1, "allreduce: peer closed");
  ASSERT_TRUE(benchmarkWhere("kept", [](const value& b) {
    return str(b, {"status", "restartCount"}) == "1";
  })) << last_.serialize();
  // Its last 100 lines, read before the gang was deleted.
  const value first = keptLogs("kept");
  const std::string kept = str(first, {"data", "gang-0.trainer1.log"});
  EXPECT_EQ(kept.substr(0, 17), "trainer1: step 51") << kept;
  EXPECT_EQ(kept.substr(kept.size() - 33), "trainer1: allreduce: peer closed\n");
  EXPECT_EQ(std::count(kept.begin(), kept.end(), '\n'), 100);
  EXPECT_TRUE(first.at("metadata").at("ownerReferences").at(0).at("controller").as_bool());
  EXPECT_TRUE(eventually([&] {
    return sawEvent(
        "Normal RankLogsKept: the last lines of trainer1 (gang 0) are kept in "
        "ConfigMap kept-logs");
  }));

  // The next gang fails for good; cleanPodPolicy All deletes its pods, the
  // logs of both gangs stay.
  client_->remove(kube::corePath(ns_, "pods", "kept-trainer-1"), kube::DeleteOptions{0, ""});
  ASSERT_TRUE(eventually([&] { return podsAre("kept", 4, "1"); }));
  kubelet_->bind(ns_, "kept-trainer-1");
  kubelet_->writeLog(ns_, "kept-trainer-1", "trainer1: out of memory\n");
  allRunning("kept");
  setPod("kept-trainer-1", "Failed", 1, "out of memory");
  ASSERT_TRUE(benchmarkWhere("kept", [](const value& b) {
    return str(b, {"status", "phase"}) == "Failed";
  })) << last_.serialize();
  const value both = keptLogs("kept");
  EXPECT_EQ(str(both, {"data", "gang-0.trainer1.log"}), kept);
  EXPECT_EQ(str(both, {"data", "gang-1.trainer1.log"}), "trainer1: out of memory\n");
  client_->remove(kube::corePath(ns_, "pods", "kept-trainer-1"), kube::DeleteOptions{0, ""});
}

}  // namespace
}  // namespace distbench::op
