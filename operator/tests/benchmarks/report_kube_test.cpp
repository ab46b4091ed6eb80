// A Succeeded run's report in the cluster, against the real API server: the
// operator reads it from the master's log (pods/log, which the API server
// proxies to the pod's kubelet, played here by fake_kubelet_logs.py on a
// Node of the test's own), stores it in <name>-report, and compares it with
// spec.baseline into the RegressionDetected condition.
#include <sys/stat.h>

#include <fstream>

#include "distbench/api/object_names.h"
#include "distbench/api/renderer.h"
#include "distbench/operator/benchmarks/run_report.h"
#include "distbench/operator/benchmarks/suspect_node_marks.h"
#include "distbench/report/fabric_simulate.h"
#include "distbench/report/report_json.h"
#include "distbench/report/report_log.h"
#include "distbench/testing/kube/operator_process.h"
#include "support/kubelet_controller_test.h"

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

class ReportTest : public KubeletControllerTest {
 protected:
  void startKubelet() {
    KubeletControllerTest::startKubelet("report");
    if (kubelet_) logs_ = kubelet_->logs();
  }

  // What the master container printed: a few lines, then the report frame.
  void writeMasterLog(const std::string& name, const std::string& text) {
    kubelet_->writeMasterLog(ns_, name, text);
  }

  static std::string logWithReport(const std::string& json) {
    return kubetest::FakeKubelet::logWithReport(json);
  }

  // The gang scheduled on the fake kubelet's Node (the master's log is only
  // reachable through a node), then Running, then Succeeded.
  void runToSuccess(const std::string& name, const value& spec = value::object()) {
    createBenchmark(name, spec);
    ASSERT_TRUE(eventually([&] { return podsAre(name, 4); }));
    for (const value& pod : podsOf(name))
      kubelet_->bind(ns_, pod.at("metadata").at("name").as_string());
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
    return client_->get(kube::corePath(ns_, "configmaps", api::reportConfigMapName(name)));
  }

  static value baselineBenchmark(const std::string& other) {
    value spec = value::object();
    spec["baseline"]["benchmark"] = value::string(other);
    spec["baseline"]["thresholdPercent"] = value::number(10);
    return spec;
  }

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
  EXPECT_TRUE(eventually([&] { return sawEvent("Normal ReportStored"); }));
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
  EXPECT_TRUE(eventually([&] { return sawEvent("Normal NoRegression"); }));

  // Every sample half as long again: every row regressed.
  writeMasterLog("slow", logWithReport(slower(base, 1.5)));
  runToSuccess("slow", baselineBenchmark("base"));
  ASSERT_EQ(settled("slow", "RegressionDetected", &reason), "True") << last_.serialize();
  EXPECT_EQ(reason, "RegressionDetected");
  EXPECT_EQ(str(last_, {"status", "baseline", "regressedRows"}),
            str(last_, {"status", "baseline", "comparedRows"}));
  EXPECT_NE(str(last_, {"status", "baseline", "worstRow"}).find("+50"), std::string::npos)
      << last_.serialize();
  EXPECT_TRUE(eventually([&] { return sawEvent("Warning RegressionDetected"); }));
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
  cm["metadata"]["labels"]["distbench.io/baseline"] = value::string("true");
  cm["data"]["ddp.json"] = value::string(fixture("report/ddp-smallcnn.json"));
  client_->create(kube::corePath(ns_, "configmaps"), cm);

  value spec = value::object();
  spec["baseline"]["configMap"]["name"] = value::string("baselines");
  spec["baseline"]["configMap"]["key"] = value::string("ddp.json");
  writeMasterLog("kinds", logWithReport(fixture("diff/tutorial-run1.json")));
  runToSuccess("kinds", spec);
  std::string reason;
  ASSERT_EQ(settled("kinds", "RegressionDetected", &reason), "Unknown") << last_.serialize();
  EXPECT_EQ(reason, "BaselineIncomparable");
  EXPECT_EQ(conditionStatus(last_, "ReportStored"), "True") << "the report is stored all the same";
  EXPECT_TRUE(eventually([&] { return sawEvent("Warning BaselineIncomparable"); }));

  // A baseline benchmark that never stored a report.
  writeMasterLog("orphan", logWithReport(fixture("diff/tutorial-run1.json")));
  runToSuccess("orphan", baselineBenchmark("never-ran"));
  ASSERT_EQ(settled("orphan", "RegressionDetected", &reason), "Unknown") << last_.serialize();
  EXPECT_EQ(reason, "BaselineNotFound");
  EXPECT_NE(last_.at("status").at("conditions").serialize().find("never-ran-report"), std::string::npos);
}

TEST_F(ReportTest, OnlyConfigMapsThatOptInAreReadAsABaseline) {
  startKubelet();
  if (HasFatalFailure()) return;
  startController();
  const std::string run = fixture("diff/tutorial-run1.json");
  // Someone's ConfigMap holding a report, not labelled as a baseline; and
  // one named like a benchmark's report that no benchmark wrote.
  for (const std::string& name : {std::string("private"), std::string("forged-report")}) {
    value cm = value::object();
    cm["apiVersion"] = value::string("v1");
    cm["kind"] = value::string("ConfigMap");
    cm["metadata"]["name"] = value::string(name);
    cm["data"]["report.json"] = value::string(run);
    client_->create(kube::corePath(ns_, "configmaps"), cm);
  }
  auto fromConfigMap = [](const std::string& name) {
    value spec = value::object();
    spec["baseline"]["configMap"]["name"] = value::string(name);
    spec["baseline"]["configMap"]["key"] = value::string("report.json");
    return spec;
  };
  // Not read, and said exactly as for a ConfigMap that is not there: the
  // benchmark learns nothing of it.
  std::string said[2];
  const std::string names[2] = {"private", "absent"};
  for (int i = 0; i < 2; ++i) {
    const std::string bench = "peek-" + names[i];
    writeMasterLog(bench, logWithReport(run));
    runToSuccess(bench, fromConfigMap(names[i]));
    std::string reason;
    ASSERT_EQ(settled(bench, "RegressionDetected", &reason), "Unknown") << last_.serialize();
    EXPECT_EQ(reason, "BaselineNotFound");
    for (const value& c : last_.at("status").at("conditions").as_array())
      if (c.at("type").as_string() == "RegressionDetected") said[i] = c.at("message").as_string();
    EXPECT_FALSE(last_.at("status").has_field("baseline")) << last_.serialize();
  }
  EXPECT_NE(said[0].find("distbench.io/baseline=true"), std::string::npos) << said[0];
  EXPECT_EQ(said[0].substr(said[0].find(" not found")), said[1].substr(said[1].find(" not found")));

  // baseline.benchmark: only that benchmark's own report.
  writeMasterLog("peek-forged", logWithReport(run));
  runToSuccess("peek-forged", baselineBenchmark("forged"));
  std::string reason;
  ASSERT_EQ(settled("peek-forged", "RegressionDetected", &reason), "Unknown") << last_.serialize();
  EXPECT_EQ(reason, "BaselineNotFound");

  // Labelled, the same ConfigMap is compared.
  client_->mergePatch(kube::corePath(ns_, "configmaps", "private"),
                      value::parse(R"({"metadata":{"labels":{"distbench.io/baseline":"true"}}})"));
  writeMasterLog("labelled", logWithReport(run));
  runToSuccess("labelled", fromConfigMap("private"));
  ASSERT_EQ(settled("labelled", "RegressionDetected", &reason), "False") << last_.serialize();
  EXPECT_EQ(reason, "NoRegression");
}

TEST_F(ReportTest, AMasterLogOfGigabytesIsReadOnlyToItsBound) {
  startKubelet();
  if (HasFatalFailure()) return;
  startController();
  // 64 lines of 1 MiB, then a good report: the operator reads the last lines
  // only up to the bound, finds no whole frame in them, and says so.
  auto hugeLog = [&](const std::string& name) {
    writeMasterLog(name, "");
    const std::string pod = api::podName(name, api::Role::Master, 0);
    std::ofstream out(logs_ + "/" + ns_ + "/" + pod + "/worker.log", std::ios::binary);
    const std::string line = std::string(1 << 20, 'x') + "\n";
    for (int i = 0; i < 64; ++i) out << line;
    out << logWithReport(fixture("diff/tutorial-run1.json"));
  };
  hugeLog("chatty");
  runToSuccess("chatty");
  std::string reason;
  ASSERT_EQ(settled("chatty", "ReportStored", &reason), "False") << last_.serialize();
  EXPECT_EQ(reason, "ReportTooLarge");
  const std::string bound = std::to_string(masterLogLimitBytes());
  EXPECT_NE(last_.at("status").at("conditions").serialize().find(bound + " bytes"), std::string::npos)
      << last_.serialize();
  // The kubelet was asked for no more (tailLines, limitBytes).
  EXPECT_NE(kubelet_->processLog().find("limitBytes=" + bound), std::string::npos)
      << kubelet_->processLog();
  EXPECT_NE(kubelet_->processLog().find("sent " + bound + " of " + bound + " bytes"),
            std::string::npos)
      << kubelet_->processLog();

  // A kubelet that ignores limitBytes sends all 64 MiB: the operator stops
  // reading at the bound all the same.
  hugeLog("deaf");
  std::ofstream(logs_ + "/" + ns_ + "/deaf-master-0/worker.ignore-limits") << "";
  runToSuccess("deaf");
  ASSERT_EQ(settled("deaf", "ReportStored", &reason), "False") << last_.serialize();
  EXPECT_EQ(reason, "ReportTooLarge");
  try {
    client_->getText(kube::corePath(ns_, "pods", "deaf-master-0") + "/log?container=worker",
                     1 << 20);
    ADD_FAILURE() << "read a 64 MiB log with a bound of 1 MiB";
  } catch (const kube::ResponseTooLarge& e) {
    EXPECT_EQ(e.limit(), 1u << 20);
  }
  // Each reader hung up early: most of the log never left the kubelet, so
  // nothing (cpprest included) buffered it whole.
  struct stat file {};
  ASSERT_EQ(::stat((logs_ + "/" + ns_ + "/deaf-master-0/worker.log").c_str(), &file), 0);
  const std::string whole = " of " + std::to_string(file.st_size) + " bytes";
  auto sends = [&] {
    std::vector<long long> sent;
    const std::string log = kubelet_->processLog();
    for (size_t at = log.find(whole); at != std::string::npos; at = log.find(whole, at + 1)) {
      const size_t start = log.rfind("sent ", at) + 5;
      sent.push_back(std::stoll(log.substr(start, at - start)));
    }
    return sent;
  };
  ASSERT_TRUE(eventually([&] { return sends().size() >= 2; })) << kubelet_->processLog();
  for (long long sent : sends()) EXPECT_LT(sent, file.st_size / 4) << kubelet_->processLog();
}

// JSON can spell a number a double cannot hold (1e999 reads as infinity):
// such a report is damaged, named by its field, and the run still ends.
TEST_F(ReportTest, AReportWithANonFiniteSampleIsRefusedNamingTheField) {
  startKubelet();
  if (HasFatalFailure()) return;
  startController();
  std::string json = fixture("diff/tutorial-run1.json");
  const std::string first = "\"samples\":[";
  const size_t begin = json.find(first) + first.size();
  ASSERT_NE(begin, std::string::npos + first.size());
  json.replace(begin, json.find(',', begin) - begin, "1e999");
  writeMasterLog("infinite", logWithReport(json));
  runToSuccess("infinite");
  std::string reason;
  ASSERT_EQ(settled("infinite", "ReportStored", &reason), "False") << last_.serialize();
  EXPECT_EQ(reason, "ReportDamaged");
  std::string message;
  for (const value& c : last_.at("status").at("conditions").as_array())
    if (c.at("type").as_string() == "ReportStored") message = c.at("message").as_string();
  EXPECT_NE(message.find("series[0].samples[0]: must be a finite number"), std::string::npos)
      << message;
  EXPECT_EQ(str(last_, {"status", "phase"}), "Succeeded");
}

TEST_F(ReportTest, MessagesFromTheLogAreBoundedInStatusAndEvents) {
  startKubelet();
  if (HasFatalFailure()) return;
  startController();
  // A begin line of 3000 two-byte characters: the damage report quotes it.
  std::string junk;
  for (int i = 0; i < 3000; ++i) junk += "é";
  writeMasterLog("wordy", "@@distbench-report begin v1 bytes=6 fnv1a64=85944171f73967e8 lines=1 " +
                              junk + "\n@@distbench-report Zm9vYmFy\n@@distbench-report end\n");
  runToSuccess("wordy");
  std::string reason;
  ASSERT_EQ(settled("wordy", "ReportStored", &reason), "False") << last_.serialize();
  EXPECT_EQ(reason, "ReportDamaged");
  std::string message;
  for (const value& c : last_.at("status").at("conditions").as_array())
    if (c.at("type").as_string() == "ReportStored") message = c.at("message").as_string();
  EXPECT_LE(message.size(), 1024u);
  EXPECT_GE(message.size(), 1000u);
  EXPECT_NE(message.find("bad begin line"), std::string::npos) << message;
  const std::string tail = message.substr(message.rfind("... [cut, "));
  EXPECT_NE(tail.find("bytes in all]"), std::string::npos) << tail;
  // Cut between characters: what precedes the marker ends in a whole "é".
  const std::string kept = message.substr(0, message.size() - tail.size());
  EXPECT_EQ(kept.substr(kept.size() - 2), "é") << "cut inside a character";
  EXPECT_TRUE(eventually([&] {
    std::lock_guard<std::mutex> lock(eventsMutex_);
    for (const std::string& e : events_)
      if (e.rfind("Warning ReportDamaged: ", 0) == 0)
        return e.size() <= std::string("Warning ReportDamaged: ").size() + 1024;
    return false;
  }));
}

TEST_F(ReportTest, ALongDiffIsStoredCutAndTheReportWhole) {
  startKubelet();
  if (HasFatalFailure()) return;
  startController();
  // 600 rows with long names: an 800 KiB report whose diff table is longer
  // than the 200 KiB a ConfigMap has left beside it.
  report::Report r = report::parseReport(fixture("diff/tutorial-run1.json"));
  const report::Series one = r.series.at(0);
  r.series.clear();
  for (int i = 0; i < 600; ++i) {
    report::Series s = one;
    s.row = "Trainer-" + std::to_string(i) + "-" + std::string(600, 'r');
    s.samples.resize(std::min<size_t>(s.samples.size(), 8));
    r.series.push_back(s);
  }
  const std::string base = report::toJson(r);
  ASSERT_LT(base.size(), kMaxStoredReportBytes);
  ASSERT_GT(base.size(), 600u * 1024);
  writeMasterLog("wide", logWithReport(base));
  runToSuccess("wide");
  std::string reason;
  ASSERT_EQ(settled("wide", "ReportStored", &reason), "True") << last_.serialize();

  writeMasterLog("wide-again", logWithReport(slower(base, 1.5)));
  runToSuccess("wide-again", baselineBenchmark("wide"));
  ASSERT_EQ(settled("wide-again", "ReportStored", &reason), "True") << last_.serialize();
  EXPECT_EQ(conditionStatus(last_, "RegressionDetected"), "True");
  std::string message;
  for (const value& c : last_.at("status").at("conditions").as_array())
    if (c.at("type").as_string() == "ReportStored") message = c.at("message").as_string();
  EXPECT_NE(message.find("baseline-diff.txt cut to fit"), std::string::npos) << message;
  const value stored = reportConfigMap("wide-again");
  EXPECT_EQ(str(stored, {"data", "report.json"}), slower(base, 1.5));
  const std::string diff = str(stored, {"data", "baseline-diff.txt"});
  EXPECT_NE(diff.find("... cut: the whole table is "), std::string::npos) << diff.substr(0, 300);
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
  EXPECT_THROW(reportConfigMap("old"), kube::KubeApiError);

  // The kubelet stops answering: asked again until --report-fetch-timeout,
  // then ReportUnavailable, and clean-up deletes the parameter server.
  kubelet_->stopServing();
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

// A Fabric run of 4 nodes whose node 1, the fake kubelet's own, has links at
// a quarter of the others': the verdict reaches status.fabric and Events by
// node name, and with --suspect-nodes label the node is labelled.
TEST_F(ReportTest, AFabricRunNamesItsSlowNodeInStatusAndLabelsIt) {
  startKubelet();
  if (HasFatalFailure()) return;
  suspectNodes_ = SuspectNodeAction::Label;
  startController();

  report::FabricWorld world;
  world.nodes = report::fabricNodes(4);
  world.nodeFactor[1] = 0.25;
  world.seed = 11;
  report::FabricMeasurements m = report::measureAllPairs(world);
  for (size_t i = 0; i < m.nodes.size(); ++i)
    m.nodes[i].node = i == 1 ? kubelet_->node() : "elsewhere-" + std::to_string(i);
  report::Report r = report::parseReport(fixture("diff/tutorial-run1.json"));
  r.kind = "Fabric";
  r.resultsJson = "{\"fabric\":" + report::fabricToJson(m) + "}";
  writeMasterLog("fab", logWithReport(report::toJson(r)));

  value spec = value::object();
  spec["topology"]["trainers"] = value::number(4);
  spec["topology"]["parameterServers"] = value::number(0);
  spec["benchmark"]["kind"] = value::string("Fabric");
  spec["benchmark"]["fabric"]["onePerNode"] = value::boolean(false);
  createBenchmark("fab", spec);
  ASSERT_TRUE(eventually([&] { return podsAre("fab", 5); })) << last_.serialize();
  for (const value& pod : podsOf("fab")) {
    const std::string name = pod.at("metadata").at("name").as_string();
    kubelet_->bind(ns_, name);
    setPod(name, "Running");
  }
  for (int i = 0; i < 4; ++i) setPod("fab-trainer-" + std::to_string(i), "Succeeded");
  setPod("fab-master-0", "Succeeded", 0, R"({"kind":"Fabric","p50":"0.010s"})");

  std::string reason;
  ASSERT_EQ(settled("fab", "ReportStored", &reason), "True") << last_.serialize();
  ASSERT_TRUE(last_.at("status").has_field("fabric")) << last_.serialize();
  const value& fabric = last_.at("status").at("fabric");
  EXPECT_EQ(fabric.at("pairsMeasured").as_integer(), 6);
  ASSERT_EQ(fabric.at("suspects").size(), 1u) << fabric.serialize();
  EXPECT_EQ(fabric.at("suspects").at(0).at("what").as_string(), "node");
  EXPECT_EQ(fabric.at("suspects").at(0).at("nodes").at(0).as_string(), kubelet_->node());
  EXPECT_TRUE(eventually([&] { return sawEvent("Warning SuspectNode"); }));
  EXPECT_TRUE(eventually([&] { return sawEvent("Normal NodeMarked"); }));
  const value node = client_->get("/api/v1/nodes/" + kubelet_->node());
  EXPECT_EQ(str(node, {"metadata", "labels", kSuspectNodeKey}), "node") << node.serialize();
  EXPECT_NE(str(node, {"metadata", "annotations", kSuspectByAnnotation}).find(ns_ + "/fab"),
            std::string::npos);
}

}  // namespace
}  // namespace distbench::op
