// kubectl distbench against the real kube-apiserver of testing/kube,
// through the kubectl scripts/install-helm.sh installs: every object is
// written as the operator writes it (the DistBenchmark's status through
// its status subresource, the report ConfigMap <run>-report), and the
// plugin is run as a user runs it, a process with a kubeconfig.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include "distbench/process/binary_runner.h"
#include "distbench/process/temp_dir.h"
#include "distbench/testing/kube/kube_test_env.h"
#include "distbench/testing/kube/kube_tools.h"

namespace distbench::plugin {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

using process::shellQuoted;

void writeFile(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

const char* const kRun = R"({"apiVersion":"distbench.io/v1alpha1","kind":"DistBenchmark",
  "metadata":{"name":"NAME"},"spec":{"topology":{"trainers":2,"parameterServers":1}}})";

// A Succeeded run's status as the operator writes it once its report is stored.
const char* const kSucceeded = R"({"phase":"Succeeded","restartCount":0,
  "master":{"active":0,"ready":0,"succeeded":1,"failed":0},
  "parameterServers":{"active":0,"ready":0,"succeeded":1,"failed":0},
  "trainers":{"active":0,"ready":0,"succeeded":2,"failed":0},
  "results":{"kind":"HybridDDPRPC","p50":"0.0123s","rows":[{"group":"All","row":"1M/2R",
    "p50":0.0123,"p75":0.013,"p90":0.014,"p95":0.015,"perSecond":81.3,"unit":"examples"}]},
  "bottleneck":"All 1M/2R: compute-bound",
  "conditions":[{"type":"Succeeded","status":"True","reason":"Succeeded","message":"done",
    "lastTransitionTime":"2026-11-28T10:00:00Z"},
   {"type":"ReportStored","status":"True","reason":"Stored","message":"ConfigMap NAME-report",
    "lastTransitionTime":"2026-11-28T10:00:01Z"}]})";

class PluginKubeTest : public kubetest::KubeTest {
 protected:
  void SetUp() override {
    kubetest::KubeTest::SetUp();
    if (HasFatalFailure()) return;
    kubectl_ = kubetest::kubeTools().kubectl;
    if (kubectl_.empty()) {
      const std::string why = "kubectl not found (looked in " + kubetest::kubeTools().searched +
                              "); run scripts/install-helm.sh";
      if (kubetest::inCi()) GTEST_FAIL() << why << " (CI=true: not skipping)";
      GTEST_SKIP() << why;
    }
    cluster_->writeKubeconfig(dir_.path() + "/admin.kubeconfig");
    cluster_->writeKubeconfig(dir_.path() + "/user.kubeconfig",
                              kubetest::KubeTestCluster::kPlainUser);
    ns_ = "plugin-" + std::to_string(::getpid() % 100000) + "-" + std::to_string(++counter_);
    ASSERT_EQ(kubectl({"create", "namespace", ns_}).exitCode, 0);
    if (!crdsInstalled_ && wantsCrds()) {
      for (const char* crd :
           {"distbench.io_distbenchmarks.yaml", "distbench.io_distbenchmarkschedules.yaml"}) {
        const auto r =
            kubectl({"create", "-f", std::string(DISTBENCH_SOURCE_DIR) + "/crds/" + crd});
        ASSERT_TRUE(r.exitCode == 0 || r.err.find("AlreadyExists") != std::string::npos) << r.err;
      }
      ASSERT_EQ(
          kubectl({"wait", "--for=condition=Established", "--timeout=60s",
                   "crd/distbenchmarks.distbench.io", "crd/distbenchmarkschedules.distbench.io"})
              .exitCode,
          0);
      crdsInstalled_ = true;
    }
  }

  virtual bool wantsCrds() const { return true; }

  // Each call its own output files: run --wait's test plays the operator
  // from a second thread.
  process::BinaryResult shell(const std::string& command) {
    const std::string n = std::to_string(calls_++);
    return process::runCaptured(command, dir_.path() + "/out" + n, dir_.path() + "/err" + n);
  }
  process::BinaryResult kubectl(const std::vector<std::string>& args,
                                const std::string& kubeconfig = "admin") {
    std::string line = shellQuoted(kubectl_) + " --kubeconfig " +
                       shellQuoted(dir_.path() + "/" + kubeconfig + ".kubeconfig") + " -n " +
                       shellQuoted(ns_);
    for (const std::string& a : args) line += " " + shellQuoted(a);
    return shell(line);
  }
  // The plugin as kubectl runs it: KUBECTL_PATH set, kubectl's flags after its name.
  process::BinaryResult plugin(const std::vector<std::string>& args,
                               const std::string& kubeconfig = "admin",
                               const std::string& cwd = "") {
    std::string line = (cwd.empty() ? "" : "cd " + shellQuoted(cwd) + " && ") +
                       "KUBECTL_PATH=" + shellQuoted(kubectl_) + " " +
                       shellQuoted(KUBECTL_DISTBENCH) + " --kubeconfig " +
                       shellQuoted(dir_.path() + "/" + kubeconfig + ".kubeconfig") + " -n " +
                       shellQuoted(ns_);
    for (const std::string& a : args) line += " " + shellQuoted(a);
    return shell(line);
  }

  // A run as the operator leaves it: the object, its status, its report.
  void storedRun(const std::string& name, const std::string& reportFile,
                 const std::string& status = kSucceeded) {
    std::string object = kRun;
    object.replace(object.find("NAME"), 4, name);
    writeFile(dir_.path() + "/run.json", object);
    ASSERT_EQ(kubectl({"create", "-f", dir_.path() + "/run.json"}).exitCode, 0);
    writeStatus(name, status);
    if (!reportFile.empty()) {
      const auto r = kubectl(
          {"create", "configmap", name + "-report", "--from-file=report.json=" + reportFile});
      ASSERT_EQ(r.exitCode, 0) << r.err;
    }
  }
  void writeStatus(const std::string& name, std::string status) {
    const auto at = status.find("NAME");
    if (at != std::string::npos) status.replace(at, 4, name);
    const auto got = kubectl({"get", "distbenchmark", name, "-o", "json"});
    ASSERT_EQ(got.exitCode, 0) << got.err;
    web::json::value object = web::json::value::parse(got.out);
    object["status"] = web::json::value::parse(status);
    writeFile(dir_.path() + "/status.json", object.serialize());
    const auto r = kubectl({"replace", "--subresource=status", "-f", dir_.path() + "/status.json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
  }

  static std::string fixture(const std::string& name) {
    return std::string(DISTBENCH_SOURCE_DIR) + "/testing/fixtures/diff/" + name;
  }

  process::TempDir dir_{"distbench-plugin-"};
  std::string kubectl_;
  std::string ns_;
  std::atomic<int> calls_{0};
  static bool crdsInstalled_;
  static int counter_;
};

bool PluginKubeTest::crdsInstalled_ = false;
int PluginKubeTest::counter_ = 0;

// First in the binary: the cluster has no distbench CRDs yet.
class PluginWithoutCrdsTest : public PluginKubeTest {
 protected:
  bool wantsCrds() const override { return false; }
};

TEST_F(PluginWithoutCrdsTest, ACommandSaysTheCrdsAreNotInstalled) {
  if (crdsInstalled_) GTEST_SKIP() << "the CRDs were installed by an earlier test of this process";
  const auto r = plugin({"list"});
  EXPECT_EQ(r.exitCode, 4);
  EXPECT_THAT(r.err, HasSubstr("distbench's CRDs are not installed in this cluster"));
  EXPECT_THAT(r.err, HasSubstr("charts/distbench-operator"));
}

// The page from the cluster is the page distbench writes from the same
// report saved where its source label says: configmap/<run>-report.
TEST_F(PluginKubeTest, ReportWritesThePageDistbenchWritesFromTheStoredReport) {
  storedRun("small", fixture("default-run1.json"));
  const auto cluster = plugin({"report", "small"}, "admin", dir_.path());
  ASSERT_EQ(cluster.exitCode, 0) << cluster.err;
  ::mkdir((dir_.path() + "/configmap").c_str(), 0700);
  const auto saved =
      kubectl({"get", "configmap", "small-report", "-o", "jsonpath={.data.report\\.json}"});
  writeFile(dir_.path() + "/configmap/small-report", saved.out);
  const auto local =
      shell("cd " + shellQuoted(dir_.path()) + " && " + shellQuoted(DISTBENCH_BINARY) +
            " report configmap/small-report -o local.html");
  ASSERT_EQ(local.exitCode, 0) << local.err;
  const std::string page = process::slurp(dir_.path() + "/small.html");
  EXPECT_GT(page.size(), 10000u);
  EXPECT_EQ(page, process::slurp(dir_.path() + "/local.html"));
  EXPECT_THAT(page, HasSubstr("configmap/small-report"));
}

// A schedule's page is the trend over its kept runs (status.runs, oldest
// first), pooled and judged as its spec.baseline says: distbench report
// --trend's page on the same reports.
TEST_F(PluginKubeTest, AScheduleReportIsTheTrendOverItsKeptRuns) {
  storedRun("canary-29404320", fixture("default-run2.json"));
  storedRun("canary-29402880", fixture("default-run1.json"));
  writeFile(dir_.path() + "/schedule.json",
            R"({"apiVersion":"distbench.io/v1alpha1","kind":"DistBenchmarkSchedule",
              "metadata":{"name":"canary"},"spec":{"schedule":"0 3 * * *",
              "baseline":{"runs":3,"thresholdPercent":10},
              "template":{"spec":{"topology":{"trainers":2}}}}})");
  ASSERT_EQ(kubectl({"create", "-f", dir_.path() + "/schedule.json"}).exitCode, 0);
  const auto got = kubectl({"get", "distbenchmarkschedule", "canary", "-o", "json"});
  web::json::value schedule = web::json::value::parse(got.out);
  // Its runs by name and uid, one still going (no report: left out).
  storedRun("canary-29405760", "", R"({"phase":"Running","restartCount":0})");
  auto uid = [&](const std::string& run) {
    return kubectl({"get", "distbenchmark", run, "-o", "jsonpath={.metadata.uid}"}).out;
  };
  schedule["status"] = web::json::value::parse(
      R"({"runs":[{"name":"canary-29404320","uid":")" + uid("canary-29404320") +
      R"(","scheduledTime":"2026-11-28T03:00:00Z"},{"name":"canary-29402880","uid":")" +
      uid("canary-29402880") +
      R"(","scheduledTime":"2026-11-27T03:00:00Z"},{"name":"canary-29405760","uid":")" +
      uid("canary-29405760") + R"(","scheduledTime":"2026-11-29T03:00:00Z"}]})");
  writeFile(dir_.path() + "/schedule-status.json", schedule.serialize());
  const auto written =
      kubectl({"replace", "--subresource=status", "-f", dir_.path() + "/schedule-status.json"});
  ASSERT_EQ(written.exitCode, 0) << written.err;

  const auto cluster = plugin({"report", "canary"}, "admin", dir_.path());
  ASSERT_EQ(cluster.exitCode, 0) << cluster.err;
  EXPECT_THAT(cluster.out, HasSubstr("canary-29402880-report: NoBaseline"));
  ::mkdir((dir_.path() + "/configmap").c_str(), 0700);
  for (const char* run : {"canary-29402880", "canary-29404320"}) {
    const auto saved = kubectl(
        {"get", "configmap", std::string(run) + "-report", "-o", "jsonpath={.data.report\\.json}"});
    writeFile(dir_.path() + "/configmap/" + run + "-report", saved.out);
  }
  const auto local =
      shell("cd " + shellQuoted(dir_.path()) + " && " + shellQuoted(DISTBENCH_BINARY) +
            " report --trend configmap/canary-29402880-report "
            "configmap/canary-29404320-report --baseline-runs 3 --threshold 10 "
            "-o local.html");
  ASSERT_EQ(local.exitCode, 0) << local.err;
  EXPECT_EQ(cluster.out, local.out);
  EXPECT_EQ(process::slurp(dir_.path() + "/canary.html"),
            process::slurp(dir_.path() + "/local.html"));
}

TEST_F(PluginKubeTest, DiffAndPredictAreDistbenchsOnTheStoredReports) {
  storedRun("monday", fixture("default-run1.json"));
  storedRun("tuesday", fixture("default-run2.json"));
  const auto diff = plugin({"diff", "monday", "tuesday", "--threshold", "5"});
  const auto local =
      shell(shellQuoted(DISTBENCH_BINARY) + " diff " + shellQuoted(fixture("default-run1.json")) +
            " " + shellQuoted(fixture("default-run2.json")) + " --threshold 5");
  EXPECT_EQ(diff.exitCode, local.exitCode) << diff.err;
  EXPECT_EQ(diff.out, local.out);
  EXPECT_THAT(diff.out, HasSubstr("median"));
  const auto predict = plugin({"predict", "monday", "--bandwidth", "1gbit"});
  const auto localPredict = shell(shellQuoted(DISTBENCH_BINARY) + " predict " +
                                  shellQuoted(fixture("default-run1.json")) + " --bandwidth 1gbit");
  EXPECT_EQ(predict.exitCode, 0) << predict.err;
  EXPECT_EQ(predict.out, localPredict.out);
}

TEST_F(PluginKubeTest, GetAndListShowRowsVerdictsAndSchedules) {
  storedRun("small", fixture("default-run1.json"));
  const auto get = plugin({"get", "small"});
  ASSERT_EQ(get.exitCode, 0) << get.err;
  EXPECT_THAT(get.out, HasSubstr("small: Succeeded, gang 0\n"));
  EXPECT_THAT(get.out, HasSubstr("0.0123    0.0130    0.0140    0.0150    81.3 examples/s"));
  // The master's attribution, from the stored report (this one has no phase
  // timings), in place of status.bottleneck's one line.
  EXPECT_THAT(get.out, HasSubstr("Why (attribution; docs/report-schema.md#attribution):"));
  EXPECT_THAT(get.out, HasSubstr("Bottleneck: HybridDDPRPC All: bound unknown (no phase timings)"));
  EXPECT_THAT(get.out, Not(HasSubstr("bottleneck: All 1M/2R: compute-bound")));
  const auto list = plugin({"list"});
  ASSERT_EQ(list.exitCode, 0) << list.err;
  EXPECT_THAT(list.out,
              HasSubstr("small                        Succeeded  0     -      0.0123s    -"));
  const auto none = plugin({"get", "nosuch"});
  EXPECT_EQ(none.exitCode, 4);
  EXPECT_THAT(none.err, HasSubstr("no DistBenchmark or DistBenchmarkSchedule nosuch"));
}

// A report from a master that kept what it printed: get shows that, as the
// master's log had it, in place of status.results' rows.
TEST_F(PluginKubeTest, GetShowsTheMastersOwnOutputFromTheReport) {
  web::json::value report = web::json::value::parse(process::slurp(fixture("default-run1.json")));
  const std::string printed =
      "-------------------------------------------\n"
      "PyTorch Distributed Benchmark (DDP and RPC)\n"
      "-------------------------------------------\n\n"
      "Trainer0:  p50:  0.012s    1300/s\n"
      "Bottleneck: HybridDDPRPC All: compute-bound\n";
  report["masterOutput"] = web::json::value::string(printed);
  writeFile(dir_.path() + "/printed.json", report.serialize());
  storedRun("printed", dir_.path() + "/printed.json");
  const auto get = plugin({"get", "printed"});
  ASSERT_EQ(get.exitCode, 0) << get.err;
  EXPECT_THAT(get.out, HasSubstr("printed: Succeeded, gang 0\n\n" + printed + "\n"));
  EXPECT_THAT(get.out, Not(HasSubstr("examples/s"))) << "not the status rows as well";
  EXPECT_THAT(get.out, Not(HasSubstr("Why (attribution"))) << "its footer is in what it printed";
  EXPECT_THAT(get.out, HasSubstr("report: kubectl distbench report printed"));
}

TEST_F(PluginKubeTest, ARunWithoutAStoredReportSaysWhy) {
  storedRun("busy", "", R"({"phase":"Running","restartCount":0,
    "trainers":{"active":2,"ready":2,"succeeded":0,"failed":0}})");
  const auto r = plugin({"report", "busy"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_THAT(r.err, HasSubstr("DistBenchmark busy has stored no report (phase Running)"));
  const auto none = plugin({"diff", "nosuch", "busy"});
  EXPECT_EQ(none.exitCode, 4);
  EXPECT_THAT(none.err, HasSubstr("no DistBenchmark nosuch (and no ConfigMap nosuch-report)"));
}

TEST_F(PluginKubeTest, AnRbacRefusalNamesWhatWasRefused) {
  storedRun("small", fixture("default-run1.json"));
  const auto r = plugin({"report", "small"}, "user");
  EXPECT_EQ(r.exitCode, 4);
  EXPECT_THAT(r.err, HasSubstr("refused by the cluster's RBAC"));
  EXPECT_THAT(r.err, HasSubstr("distbench-user"));
}

// Credentials from an exec plugin, as cloud clusters give them: kubectl
// runs it; distbench's own client could not.
TEST_F(PluginKubeTest, ExecCredentialPluginsWorkThroughKubectl) {
  storedRun("small", fixture("default-run1.json"));
  const std::string script = dir_.path() + "/credential.sh";
  writeFile(script,
            "#!/bin/sh\necho '{\"apiVersion\":\"client.authentication.k8s.io/v1\","
            "\"kind\":\"ExecCredential\",\"status\":{\"token\":\"" +
                cluster_->token() + "\"}}'\n");
  ::chmod(script.c_str(), 0700);
  writeFile(dir_.path() + "/exec.kubeconfig",
            "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: " +
                cluster_->url() + "\n    certificate-authority: " + cluster_->caFile() +
                "\nusers:\n- name: u\n  user:\n    exec:\n      apiVersion: "
                "client.authentication.k8s.io/v1\n"
                "      command: " +
                script +
                "\n      interactiveMode: Never\n"
                "contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n");
  const auto r = plugin({"get", "small"}, "exec");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("small: Succeeded"));
}

// run --wait against a status this test writes as the operator would: the
// run's states, a gang restart with its cause, the rows at the end. Each
// state is written once the plugin has printed the one before.
TEST_F(PluginKubeTest, RunWaitFollowsTheRunToItsRows) {
  std::string spec = kRun;
  spec.replace(spec.find("NAME"), 4, "followed");
  writeFile(dir_.path() + "/spec.json", spec);
  const std::string printed = dir_.path() + "/run.out";
  auto shows = [&](const std::string& line) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline) {
      if (process::slurp(printed).find(line) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ADD_FAILURE() << "the plugin did not print '" << line << "' within 60 s";
    return false;
  };
  std::thread operatorPlayed([&] {
    if (!shows("applied DistBenchmark followed")) return;
    writeStatus("followed", R"({"phase":"Running","restartCount":0,"master":{"active":1,"ready":1},
        "parameterServers":{"active":1,"ready":1},"trainers":{"active":2,"ready":2}})");
    if (!shows("Running, gang 0, ranks 4/4 ready")) return;
    writeStatus("followed", R"({"phase":"Running","restartCount":0,"master":{"active":1,"ready":1},
        "parameterServers":{"active":1,"ready":1},"trainers":{"active":2,"ready":2},
        "progress":{"unit":"epochs","done":3,"total":10,"gang":0,
          "observedTime":"2026-11-28T10:00:00Z"}})");
    if (!shows("progress [#########.....................]  3/10 epochs  30%")) return;
    writeStatus("followed", R"({"phase":"Pending","restartCount":1,"master":{"active":1,"ready":0},
        "parameterServers":{"active":1,"ready":0},"trainers":{"active":2,"ready":0},
        "conditions":[{"type":"Restarting","status":"True","reason":"RankFailed",
          "message":"trainer1 (pod followed-trainer-1) exited 1: boom",
          "lastTransitionTime":"2026-11-28T10:00:00Z"}]})");
    if (!shows("Pending, gang 1")) return;
    std::string done = kSucceeded;
    done.replace(done.find("\"restartCount\":0"), 16, "\"restartCount\":1");
    writeStatus("followed", done);
    kubectl({"create", "configmap", "followed-report",
             "--from-file=report.json=" + fixture("default-run1.json")});
  });
  const auto r = process::runCaptured(
      "KUBECTL_PATH=" + shellQuoted(kubectl_) + " " + shellQuoted(KUBECTL_DISTBENCH) +
          " --kubeconfig " + shellQuoted(dir_.path() + "/admin.kubeconfig") + " -n " +
          shellQuoted(ns_) + " run -f " + shellQuoted(dir_.path() + "/spec.json") +
          " --wait --timeout 180",
      printed, dir_.path() + "/run.err");
  operatorPlayed.join();
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_THAT(r.out,
              HasSubstr("restart 1: RankFailed: trainer1 (pod followed-trainer-1) exited 1: boom"));
  EXPECT_THAT(r.out, HasSubstr("Succeeded, gang 1"));
  EXPECT_THAT(r.out, HasSubstr("81.3 examples/s"));
  // Applied again, finished: refused without --replace.
  const auto again = plugin({"run", "-f", dir_.path() + "/spec.json"});
  EXPECT_EQ(again.exitCode, 2);
  EXPECT_THAT(again.err, HasSubstr("exists and has Succeeded"));
}

TEST_F(PluginKubeTest, RunWaitWithoutAnOperatorSaysSo) {
  std::string spec = kRun;
  spec.replace(spec.find("NAME"), 4, "orphan");
  writeFile(dir_.path() + "/spec.json", spec);
  const auto r =
      plugin({"run", "-f", dir_.path() + "/spec.json", "--wait", "--operator-timeout", "3"});
  EXPECT_EQ(r.exitCode, 4);
  EXPECT_THAT(r.err, HasSubstr("no operator has written orphan's status in 3 s"));
}

TEST_F(PluginKubeTest, LogsOfAGoneGangSayWhatTheOperatorRecorded) {
  storedRun("restarted", fixture("default-run1.json"),
            R"({"phase":"Running","restartCount":1,"trainers":{"active":2,"ready":2}})");
  const auto earlier = plugin({"logs", "restarted", "--rank", "trainer1", "--gang", "0"});
  EXPECT_EQ(earlier.exitCode, 0) << earlier.err;
  EXPECT_THAT(earlier.out, HasSubstr("gang 0's pods were replaced (restarted is at gang 1)"));
  EXPECT_THAT(earlier.out, HasSubstr("trainer1's log of gang 0 was not kept: the operator keeps "
                                     "the last lines of the ranks that failed, and kept none of "
                                     "gang 0)"));
  EXPECT_THAT(earlier.out, HasSubstr("what the operator recorded of the restarts:"));

  // As the operator keeps a failed rank's last lines (ConfigMap <name>-logs).
  writeFile(dir_.path() + "/trainer1.log", "trainer1: step 40\ntrainer1: allreduce: peer closed\n");
  ASSERT_EQ(kubectl({"create", "configmap", "restarted-logs",
                     "--from-file=gang-0.trainer1.log=" + dir_.path() + "/trainer1.log"})
                .exitCode,
            0);
  const auto kept = plugin({"logs", "restarted", "--rank", "3", "--gang", "0"});
  EXPECT_EQ(kept.exitCode, 0) << kept.err;
  EXPECT_THAT(kept.out, HasSubstr("(trainer1 of gang 0, which failed: its last lines, kept by the "
                                  "operator in ConfigMap restarted-logs)\n"
                                  "trainer1: step 40\ntrainer1: allreduce: peer closed\n"));
  const auto other = plugin({"logs", "restarted", "--rank", "trainer0", "--gang", "0"});
  EXPECT_THAT(other.out, HasSubstr("trainer0's log of gang 0 was not kept: the operator keeps the "
                                   "last lines of the ranks that failed (of gang 0: trainer1; "
                                   "try --rank with one of them))"));
  const auto gone = plugin({"logs", "restarted", "--rank", "trainer1"});
  EXPECT_EQ(gone.exitCode, 4);
  EXPECT_THAT(gone.err, HasSubstr("pod restarted-trainer-1 is gone"));
  const auto bad = plugin({"logs", "restarted", "--rank", "trainer2"});
  EXPECT_EQ(bad.exitCode, 2);
  EXPECT_THAT(bad.err, HasSubstr("--rank trainer2: restarted has no such rank"));
}

TEST_F(PluginKubeTest, CompletionOffersTheRunsOfTheNamespace) {
  storedRun("alpha", fixture("default-run1.json"));
  storedRun("beta", fixture("default-run1.json"));
  const auto r = plugin({"__complete", "report", "al"});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, "alpha\n:4\n");
  EXPECT_EQ(plugin({"__complete", "re"}).out, "report\n:4\n");
}

}  // namespace
}  // namespace distbench::plugin
