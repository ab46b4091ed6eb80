// kubectl distbench run --wait against the operator's own reconciler, not a
// status the test writes: the operator makes the gang, restarts it when a
// trainer fails, reads trainer 0's progress and the master's report from
// their logs (fake_kubelet_logs.py plays the kubelet), and the plugin,
// through kubectl, follows all of it to the master's table.
#include <gmock/gmock.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "distbench/api/progress_line.h"
#include "distbench/process/binary_runner.h"
#include "distbench/report/report_json.h"
#include "distbench/testing/kube/kube_tools.h"
#include "support/kubelet_controller_test.h"

#ifndef KUBECTL_DISTBENCH
#error "KUBECTL_DISTBENCH must name the kubectl-distbench binary"
#endif

namespace distbench::op {
namespace {

using process::shellQuoted;

class PluginFollowTest : public KubeletControllerTest {
 protected:
  // The pods of the gang that the test reads logs of, on the kubelet's Node.
  void bindReadPods(const std::string& name) {
    kubelet_->bind(ns_, name + "-master-0");
    kubelet_->bind(ns_, name + "-trainer-0");
  }

  // No kubelet confirms a bound pod's end: removed at once, as one would.
  void forgetBoundPods(const std::string& name) {
    for (const char* pod : {"-master-0", "-trainer-0"})
      client_->remove(kube::corePath(ns_, "pods", name + pod), kube::DeleteOptions{0, ""});
  }
};

TEST_F(PluginFollowTest, RunWaitFollowsARestartAndProgressToTheMastersTable) {
  const std::string kubectl = kubetest::kubeTools().kubectl;
  if (kubectl.empty()) {
    const std::string why =
        "no kubectl (" + kubetest::kubeTools().searched + "; scripts/install-helm.sh installs it)";
    if (kubetest::inCi()) GTEST_FAIL() << why << " (CI=true: not skipping)";
    GTEST_SKIP() << why;
  }
  startKubelet("follow");
  if (HasFatalFailure()) return;
  progressInterval_ = std::chrono::seconds(1);
  startController();

  value spec = kubetest::smallBenchmark("followed");
  spec["spec"]["runPolicy"]["backoffLimit"] = value::number(1);
  std::ofstream(dir_->path() + "/spec.json") << spec.serialize();
  const std::string printed = dir_->path() + "/run.out";
  process::BinaryResult result;
  std::thread plugin([&] {
    result = process::runCaptured(
        "KUBECTL_PATH=" + shellQuoted(kubectl) + " " + shellQuoted(KUBECTL_DISTBENCH) +
            " --kubeconfig " + shellQuoted(kubeconfig_) + " -n " + shellQuoted(ns_) + " run -f " +
            shellQuoted(dir_->path() + "/spec.json") + " --wait --timeout 180",
        printed, dir_->path() + "/run.err");
  });
  // However the test ends, the plugin does too (a deleted run ends its
  // wait), and no bound pod is left Terminating on the shared API server.
  struct Joined {
    std::function<void()> end;
    ~Joined() { end(); }
  } joined{[&] {
    try {
      if (plugin.joinable()) client_->remove(benchmarksPath("followed"));
      forgetBoundPods("followed");
    } catch (const std::exception&) {
    }
    if (plugin.joinable()) plugin.join();
  }};
  auto shows = [&](const std::string& line) {
    return eventually([&] { return process::slurp(printed).find(line) != std::string::npos; },
                      std::chrono::seconds(60));
  };

  // Gang 0 runs, and a trainer fails: the operator restarts the gang.
  ASSERT_TRUE(eventually([&] { return podsAre("followed", 4, "0"); }));
  bindReadPods("followed");
  allRunning("followed");
  ASSERT_TRUE(shows("Running, gang 0, ranks 4/4 ready")) << process::slurp(printed);
  setPod("followed-trainer-1", "Failed", 1, "allreduce: peer closed");
  ASSERT_TRUE(shows("restart 1: ")) << process::slurp(printed);
  forgetBoundPods("followed");

  // Gang 1: trainer 0 says how far it is, then every rank succeeds.
  ASSERT_TRUE(eventually([&] { return podsAre("followed", 4, "1"); }));
  bindReadPods("followed");
  kubelet_->writeLog(ns_, "followed-trainer-0",
                     api::formatProgressLine({4, 10, "epochs"}) + "trainer0: epoch 4\n");
  allRunning("followed");
  ASSERT_TRUE(shows("progress [############..................]  4/10 epochs  40%"))
      << process::slurp(printed);

  report::Report report =
      report::loadReportFile(std::string(DISTBENCH_REPORT_FIXTURES) + "/diff/tutorial-run1.json");
  report.masterOutput = "PyTorch Distributed Benchmark (DDP and RPC)\nTrainer0:  p50:  0.040s\n";
  kubelet_->writeMasterLog(ns_, "followed",
                           kubetest::FakeKubelet::logWithReport(report::toJson(report)));
  setPod("followed-trainer-0", "Succeeded");
  setPod("followed-trainer-1", "Succeeded");
  setPod("followed-master-0", "Succeeded", 0, R"({"kind":"HybridDDPRPC","p50":"0.040s"})");
  plugin.join();

  const std::string out = process::slurp(printed);
  EXPECT_EQ(result.exitCode, 0) << out << result.err;
  EXPECT_THAT(out, ::testing::HasSubstr("restart 1: RankFailed: followed-trainer-1 (rank 3)"));
  EXPECT_THAT(out, ::testing::HasSubstr("Running, gang 1, ranks 4/4 ready"));
  EXPECT_THAT(
      out, ::testing::HasSubstr("progress [##############################]  10/10 epochs  100%"));
  EXPECT_THAT(out, ::testing::HasSubstr("followed: Succeeded, gang 1\n\n" + report.masterOutput));
  EXPECT_THAT(out, ::testing::HasSubstr("report: kubectl distbench report followed"));
}

}  // namespace
}  // namespace distbench::op
