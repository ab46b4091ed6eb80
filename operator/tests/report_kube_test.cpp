// A Succeeded run's report in the cluster, against the real API server: the
// operator reads it from the master's log (pods/log, which the API server
// proxies to the pod's kubelet, played here by fake_kubelet_logs.py on a
// Node of the test's own), stores it in <name>-report, and compares it with
// spec.baseline into the RegressionDetected condition.
#include <fstream>
#include <sys/stat.h>

#include "controller_test_fixture.h"
#include "distbench/api/object_names.h"
#include "distbench/api/renderer.h"
#include "distbench/report/report_json.h"
#include "distbench/report/report_log.h"
#include "operator_process.h"

namespace distbench::op {
namespace {

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string fixture(const std::string& name) {
  return readFile(std::string(DISTBENCH_REPORT_FIXTURES) + "/" + name);
}

// `json` with every sample `factor` times as long: a run that regressed.
std::string slower(const std::string& json, double factor) {
  report::Report r = report::parseReport(json);
  for (report::Series& s : r.series)
    for (double& x : s.samples) x *= factor;
  return report::toJson(r);
}

// A condition's status text ("True", "False", "Unknown"), "" when absent.
std::string conditionStatus(const value& b, const std::string& type, std::string* reason = nullptr) {
  if (!b.has_field("status") || !b.at("status").has_field("conditions")) return "";
  for (const value& c : b.at("status").at("conditions").as_array()) {
    if (c.at("type").as_string() != type) continue;
    if (reason) *reason = c.has_field("reason") ? c.at("reason").as_string() : "";
    return c.at("status").as_string();
  }
  return "";
}

class ReportTest : public ControllerTest {
 protected:
  void TearDown() override {
    ControllerTest::TearDown();
    kubelet_.reset();
    if (client_ && !node_.empty()) client_->remove("/api/v1/nodes/" + node_);
  }

  // A Node whose kubelet endpoint is `port` on 127.0.0.1.
  void createNode(int port) {
    node_ = "report-" + ns_;
    value node = value::object();
    node["apiVersion"] = value::string("v1");
    node["kind"] = value::string("Node");
    node["metadata"]["name"] = value::string(node_);
    client_->create("/api/v1/nodes", node);
    value status = value::object();
    value address = value::object();
    address["type"] = value::string("InternalIP");
    address["address"] = value::string("127.0.0.1");
    status["status"]["addresses"] = value::array({address});
    status["status"]["daemonEndpoints"]["kubeletEndpoint"]["Port"] = value::number(port);
    client_->mergePatch("/api/v1/nodes/" + node_ + "/status", status);
  }

  // fake_kubelet_logs.py on a free port, and a Node pointing at it.
  void startKubelet() {
    logs_ = dir_->path() + "/kubelet-logs";
    const int port = kubetest::freePort();
    kubelet_ = std::make_unique<kubetest::OperatorProcess>(
        "/usr/bin/python3",
        std::vector<std::string>{DISTBENCH_FAKE_KUBELET, "--port", std::to_string(port), "--cert",
                                 cluster_->servingCertFile(), "--key", cluster_->servingKeyFile(),
                                 "--logs", logs_},
        std::vector<std::string>{}, dir_->path() + "/kubelet.log");
    ASSERT_TRUE(eventually([&] { return kubelet_->log().find("listening on") != std::string::npos; }))
        << kubelet_->log();
    createNode(port);
  }

  // What the master container printed: a few lines, then the report frame.
  void writeMasterLog(const std::string& name, const std::string& text) {
    const std::string pod = api::podName(name, api::Role::Master, 0);
    for (const std::string& d : {logs_, logs_ + "/" + ns_, logs_ + "/" + ns_ + "/" + pod})
      ::mkdir(d.c_str(), 0755);
    std::ofstream(logs_ + "/" + ns_ + "/" + pod + "/worker.log") << text;
  }

  static std::string logWithReport(const std::string& json) {
    return "master: joined 4 ranks\nmaster: result summary written\n" +
           report::reportLogLines(json) + "master: run complete\n";
  }

  // The gang scheduled on node_ (the master's log is only reachable through
  // a node), then Running, then Succeeded.
  void runToSuccess(const std::string& name, const value& spec = value::object()) {
    createBenchmark(name, spec);
    ASSERT_TRUE(eventually([&] { return podsAre(name, 4); }));
    for (const value& pod : podsOf(name)) {
      const std::string podName = pod.at("metadata").at("name").as_string();
      value binding = value::object();
      binding["apiVersion"] = value::string("v1");
      binding["kind"] = value::string("Binding");
      binding["metadata"]["name"] = value::string(podName);
      binding["target"]["kind"] = value::string("Node");
      binding["target"]["name"] = value::string(node_);
      client_->create(corePath(ns_, "pods", podName) + "/binding", binding);
    }
    allRunning(name);
    ASSERT_TRUE(benchmarkWhere(name, [](const value& b) {
      return str(b, {"status", "phase"}) == "Running";
    })) << last_.serialize();
    setPod(name + "-trainer-0", "Succeeded");
    setPod(name + "-trainer-1", "Succeeded");
    setPod(name + "-master-0", "Succeeded", 0, R"({"kind":"HybridDDPRPC","p50":"0.376s"})");
  }

  // Waits until condition `type` is set, and returns its status.
  std::string settled(const std::string& name, const std::string& type, std::string* reason) {
    EXPECT_TRUE(benchmarkWhere(name, [&](const value& b) { return !conditionStatus(b, type).empty(); }))
        << type << " never set: " << last_.serialize();
    return conditionStatus(last_, type, reason);
  }

  value reportConfigMap(const std::string& name) {
    return client_->get(corePath(ns_, "configmaps", api::reportConfigMapName(name)));
  }

  static value baselineBenchmark(const std::string& other) {
    value spec = value::object();
    spec["baseline"]["benchmark"] = value::string(other);
    spec["baseline"]["thresholdPercent"] = value::number(10);
    return spec;
  }

  std::unique_ptr<kubetest::OperatorProcess> kubelet_;
  std::string node_;
  std::string logs_;
};

TEST_F(ReportTest, StoresTheReportAndComparesLaterRunsWithIt) {
  startKubelet();
  if (HasFatalFailure()) return;
  startController();
  const std::string base = fixture("diff/tutorial-run1.json");

  // The baseline run: its report lands in base-report, kept after clean-up.
  writeMasterLog("base", logWithReport(base));
  runToSuccess("base");
  std::string reason;
  ASSERT_EQ(settled("base", "ReportStored", &reason), "True") << last_.serialize();
  EXPECT_EQ(reason, "ReportStored");
  EXPECT_EQ(str(last_, {"status", "report", "configMap"}), "base-report");
  EXPECT_EQ(str(last_, {"status", "report", "bytes"}), std::to_string(base.size()));
  EXPECT_EQ(conditionStatus(last_, "RegressionDetected"), "") << "no baseline, no comparison";
  const value stored = reportConfigMap("base");
  EXPECT_EQ(str(stored, {"data", "report.json"}), base);
  EXPECT_TRUE(stored.at("metadata").at("ownerReferences").at(0).at("controller").as_bool());
  EXPECT_TRUE(sawEvent("Normal ReportStored"));
  ASSERT_TRUE(eventually([&] { return podsAre("base", 3); })) << "clean-up did not follow";

  // The same work again: compared, nothing regressed.
  writeMasterLog("same", logWithReport(base));
  runToSuccess("same", baselineBenchmark("base"));
  ASSERT_EQ(settled("same", "RegressionDetected", &reason), "False") << last_.serialize();
  EXPECT_EQ(reason, "NoRegression");
  EXPECT_EQ(str(last_, {"status", "baseline", "source"}), "benchmark base");
  EXPECT_NE(str(last_, {"status", "baseline", "comparedRows"}), "0");
  EXPECT_EQ(str(last_, {"status", "baseline", "regressedRows"}), "0");
  EXPECT_NE(str(reportConfigMap("same"), {"data", "baseline-diff.txt"}).find("no regressions"),
            std::string::npos)
      << reportConfigMap("same").serialize();
  EXPECT_TRUE(sawEvent("Normal NoRegression"));

  // Every sample half as long again: every row regressed.
  writeMasterLog("slow", logWithReport(slower(base, 1.5)));
  runToSuccess("slow", baselineBenchmark("base"));
  ASSERT_EQ(settled("slow", "RegressionDetected", &reason), "True") << last_.serialize();
  EXPECT_EQ(reason, "RegressionDetected");
  EXPECT_EQ(str(last_, {"status", "baseline", "regressedRows"}),
            str(last_, {"status", "baseline", "comparedRows"}));
  EXPECT_NE(str(last_, {"status", "baseline", "worstRow"}).find("+50"), std::string::npos)
      << last_.serialize();
  EXPECT_TRUE(sawEvent("Warning RegressionDetected"));
  EXPECT_EQ(str(last_, {"status", "phase"}), "Succeeded") << "a regression is news, not a failure";
}

TEST_F(ReportTest, ABaselineOfAnotherKindOrMissingIsRefusedByName) {
  startKubelet();
  if (HasFatalFailure()) return;
  startController();
  // A ConfigMap key holding a DDP report: not comparable with a hybrid run.
  value cm = value::object();
  cm["apiVersion"] = value::string("v1");
  cm["kind"] = value::string("ConfigMap");
  cm["metadata"]["name"] = value::string("baselines");
  cm["data"]["ddp.json"] = value::string(fixture("report/ddp-smallcnn.json"));
  client_->create(corePath(ns_, "configmaps"), cm);

  value spec = value::object();
  spec["baseline"]["configMap"]["name"] = value::string("baselines");
  spec["baseline"]["configMap"]["key"] = value::string("ddp.json");
  writeMasterLog("kinds", logWithReport(fixture("diff/tutorial-run1.json")));
  runToSuccess("kinds", spec);
  std::string reason;
  ASSERT_EQ(settled("kinds", "RegressionDetected", &reason), "Unknown") << last_.serialize();
  EXPECT_EQ(reason, "BaselineIncomparable");
  EXPECT_EQ(conditionStatus(last_, "ReportStored"), "True") << "the report is stored all the same";
  EXPECT_TRUE(sawEvent("Warning BaselineIncomparable"));

  // A baseline benchmark that never stored a report.
  writeMasterLog("orphan", logWithReport(fixture("diff/tutorial-run1.json")));
  runToSuccess("orphan", baselineBenchmark("never-ran"));
  ASSERT_EQ(settled("orphan", "RegressionDetected", &reason), "Unknown") << last_.serialize();
  EXPECT_EQ(reason, "BaselineNotFound");
  EXPECT_NE(last_.at("status").at("conditions").serialize().find("never-ran-report"), std::string::npos);
}

TEST_F(ReportTest, ALogWithoutAReportOrAKubeletThatDoesNotAnswerIsSaidAndCleanUpGoesOn) {
  startKubelet();
  if (HasFatalFailure()) return;
  reportFetchTimeout_ = 3s;
  startController();

  // An older worker image prints no report.
  writeMasterLog("old", "master: joined 4 ranks\nmaster: run complete\n");
  runToSuccess("old", baselineBenchmark("base"));
  std::string reason;
  ASSERT_EQ(settled("old", "ReportStored", &reason), "False") << last_.serialize();
  EXPECT_EQ(reason, "ReportMissing");
  EXPECT_EQ(conditionStatus(last_, "RegressionDetected", &reason), "Unknown");
  EXPECT_EQ(reason, "NoReport");
  EXPECT_THROW(reportConfigMap("old"), KubeApiError);

  // The kubelet stops answering: asked again until --report-fetch-timeout,
  // then ReportUnavailable, and clean-up deletes the parameter server.
  kubelet_.reset();
  runToSuccess("gone");
  const auto succeeded = std::chrono::steady_clock::now();
  EXPECT_TRUE(benchmarkWhere("gone", [](const value& b) {
    return conditionStatus(b, "ReportStored") == "False";
  }, 30s)) << last_.serialize();
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - succeeded).count();
  conditionStatus(last_, "ReportStored", &reason);
  EXPECT_EQ(reason, "ReportUnavailable");
  EXPECT_GE(waited, 2.0) << "given up before the fetch timeout";
  EXPECT_NE(last_.at("status").at("conditions").serialize().find("gone-master-0"), std::string::npos);
  ASSERT_TRUE(eventually([&] { return podsAre("gone", 3); })) << "clean-up did not follow";
}

}  // namespace
}  // namespace distbench::op
