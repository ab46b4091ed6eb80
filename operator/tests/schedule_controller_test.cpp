// The DistBenchmarkSchedule controller against a real API server, on a
// clock the test moves: runs start at their firings and are named by them,
// concurrency policies, suspend, catch-up after downtime, history limits,
// and the rolling baseline kept from the runs' stored reports. No
// DistBenchmark controller runs here: the test plays its part by writing a
// run's status and report ConfigMap, as the other kube tests play the
// kubelet's.
#include "distbench/operator/schedule_controller.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>
#include <vector>

#include "benchmark_namespace_test.h"
#include "distbench/api/object_names.h"
#include "distbench/api/schedule_spec.h"
#include "distbench/kube/json_fields.h"
#include "distbench/operator/reconciler.h"
#include "distbench/report/report.h"
#include "distbench/report/report_json.h"
#include "distbench/testing/kube/control_plane_outage.h"

namespace distbench::op {
namespace {

using web::json::value;
using namespace std::chrono_literals;
using kubetest::eventually;

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(DISTBENCH_REPORT_FIXTURES) + "/" + name);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// `json` with every sample `factor` times as long.
std::string slower(const std::string& json, double factor) {
  report::Report r = report::parseReport(json);
  for (report::Series& s : r.series)
    for (double& x : s.samples) x *= factor;
  return report::toJson(r);
}

int64_t minutesOf(SystemTime t) {
  return std::chrono::duration_cast<std::chrono::minutes>(t.time_since_epoch()).count();
}

// The start of the minute after `t`.
SystemTime nextMinute(SystemTime t) {
  return SystemTime(std::chrono::minutes(minutesOf(t) + 1));
}

class ScheduleControllerTest : public kubetest::BenchmarkNamespaceTest {
 protected:
  ScheduleControllerTest() : BenchmarkNamespaceTest("sched") {}

  void SetUp() override {
    BenchmarkNamespaceTest::SetUp();
    if (!cluster_) return;
    kubetest::establishedScheduleCrd();
    now_ = std::chrono::system_clock::now();
  }

  void TearDown() override {
    if (controller_) controller_->stop();
  }

  void start() {
    ScheduleControllerOptions o;
    o.ns = ns_;
    o.workers = 1;
    o.informer.backoffMax = 1s;
    o.queue = queue_;
    o.reconciler.now = [this] {
      std::lock_guard<std::mutex> lock(clockMutex_);
      return now_;
    };
    o.reconciler.onEvent = [this](const value&, bool warning, const std::string& reason,
                                  const std::string& message) {
      std::lock_guard<std::mutex> lock(eventsMutex_);
      events_.push_back((warning ? "Warning " : "Normal ") + reason + ": " + message);
    };
    o.onReconciled = [this](const std::string& key, std::chrono::duration<double>, const Result&,
                            const std::string* error) {
      if (error)
        std::fprintf(stderr, "reconcile %s: %s\n", key.c_str(), error->c_str());
      else
        ++reconciledOk_;
    };
    controller_ = std::make_unique<ScheduleController>(*client_, o);
    controller_->startInformers();
    ASSERT_TRUE(controller_->waitForSync(30s));
    controller_->startWorkers();
  }

  void stop() {
    controller_->stop();
    controller_.reset();
  }

  // Moves the reconciler's clock and has every schedule look again.
  void setNow(SystemTime t) {
    {
      std::lock_guard<std::mutex> lock(clockMutex_);
      now_ = t;
    }
    if (controller_) controller_->enqueueAll();
  }
  SystemTime now() {
    std::lock_guard<std::mutex> lock(clockMutex_);
    return now_;
  }

  value schedule(const std::string& name, const std::string& cron, value extraSpec = value::object()) {
    value s = value::object();
    s["apiVersion"] = value::string("distbench.io/v1alpha1");
    s["kind"] = value::string("DistBenchmarkSchedule");
    s["metadata"]["name"] = value::string(name);
    s["spec"]["schedule"] = value::string(cron);
    s["spec"]["template"]["spec"]["topology"]["trainers"] = value::number(2);
    s["spec"]["template"]["spec"]["topology"]["parameterServers"] = value::number(1);
    s["spec"]["template"]["metadata"]["labels"]["team"] = value::string("perf");
    for (const auto& [k, v] : extraSpec.as_object()) s["spec"][k] = v;
    return s;
  }

  value create(const value& s) {
    return client_->create(kubetest::establishedScheduleCrd().path(ns_), s);
  }

  value get(const std::string& name) {
    return client_->get(kubetest::establishedScheduleCrd().path(ns_) + "/" + name);
  }

  void patchSpec(const std::string& name, const value& spec) {
    value patch = value::object();
    patch["spec"] = spec;
    client_->mergePatch(kubetest::establishedScheduleCrd().path(ns_) + "/" + name, patch);
  }

  std::vector<value> runs(const std::string& schedule) {
    const value list = client_->get(kubetest::establishedCrd().path(ns_) + "?labelSelector=" +
                                    queryEscape(std::string(api::kScheduleLabel) + "=" + schedule));
    std::vector<value> out;
    for (const value& r : list.at("items").as_array())
      if (!r.at("metadata").has_field("deletionTimestamp")) out.push_back(r);
    return out;
  }

  std::vector<std::string> runNames(const std::string& schedule) {
    std::vector<std::string> names;
    for (const value& r : runs(schedule)) names.push_back(r.at("metadata").at("name").as_string());
    std::sort(names.begin(), names.end());
    return names;
  }

  // The DistBenchmark controller's part: the run ends, its report stored.
  void finish(const std::string& run, const std::string& phase, const std::string& reportJson = "",
              const std::string& regression = "") {
    const std::string path = kubetest::establishedCrd().path(ns_) + "/" + run;
    value b = client_->get(path);
    value status = value::object();
    status["phase"] = value::string(phase);
    status["message"] = value::string(phase == "Failed" ? "trainer 1 exited with code 1" : "done");
    status["completionTime"] = value::string(formatRfc3339(now()));
    status["results"]["p50"] = value::string("0.123s");
    value conditions = value::array();
    if (phase == "Succeeded") {
      value stored = value::object();
      stored["type"] = value::string("ReportStored");
      stored["status"] = value::string(reportJson.empty() ? "False" : "True");
      stored["reason"] = value::string(reportJson.empty() ? "ReportMissing" : "Stored");
      stored["message"] = value::string("m");
      stored["lastTransitionTime"] = value::string(formatRfc3339(now()));
      conditions[0] = stored;
      if (!regression.empty()) {
        value r = value::object();
        r["type"] = value::string("RegressionDetected");
        r["status"] = value::string(regression);
        r["reason"] = value::string(regression == "True" ? "RegressionDetected" : "NoRegression");
        r["message"] = value::string(regression == "True" ? "1 of 1 rows regressed" : "none");
        r["lastTransitionTime"] = value::string(formatRfc3339(now()));
        conditions[1] = r;
        status["baseline"]["worstRow"] = value::string("HybridDDPRPC / All: median +50%");
      }
    }
    status["conditions"] = conditions;
    if (!reportJson.empty()) {
      value cm = value::object();
      cm["apiVersion"] = value::string("v1");
      cm["kind"] = value::string("ConfigMap");
      cm["metadata"]["name"] = value::string(api::reportConfigMapName(run));
      cm["data"][api::kReportKey] = value::string(reportJson);
      client_->create(corePath(ns_, "configmaps"), cm);
    }
    b["status"] = status;
    client_->replace(path + "/status", b);
  }

  bool sawEvent(const std::string& prefix) {
    std::lock_guard<std::mutex> lock(eventsMutex_);
    for (const std::string& e : events_)
      if (e.rfind(prefix, 0) == 0) return true;
    return false;
  }

  std::string str(const value& v, const std::vector<std::string>& path) {
    const value* at = &v;
    for (const std::string& p : path) {
      if (!at->is_object() || !at->has_field(p)) return "";
      at = &at->at(p);
    }
    if (at->is_string()) return at->as_string();
    if (at->is_number()) return std::to_string(at->as_number().to_int64());
    if (at->is_boolean()) return at->as_bool() ? "true" : "false";
    return at->serialize();
  }

  WorkQueueOptions queue_;            // set before start()
  std::atomic<int> reconciledOk_{0};  // reconciles that ended without an error
  std::unique_ptr<ScheduleController> controller_;
  std::mutex clockMutex_;
  SystemTime now_;
  std::mutex eventsMutex_;
  std::vector<std::string> events_;
};

TEST_F(ScheduleControllerTest, StartsARunAtEachFiringNamedByItsTime) {
  const value created = create(schedule("every", "* * * * *"));
  const SystemTime since =
      parseRfc3339(str(created, {"metadata", "creationTimestamp"})).value();
  setNow(since);
  start();
  ASSERT_TRUE(eventually([&] { return !str(get("every"), {"status", "nextScheduleTime"}).empty(); }));
  EXPECT_TRUE(runNames("every").empty());
  EXPECT_EQ(str(get("every"), {"status", "nextScheduleTime"}), formatRfc3339(nextMinute(since)));

  const SystemTime first = nextMinute(since);
  setNow(first + 2s);
  const std::string name = "every-" + std::to_string(minutesOf(first));
  ASSERT_TRUE(eventually([&] { return runNames("every") == std::vector<std::string>{name}; }));
  const value run = runs("every").at(0);
  EXPECT_EQ(str(run, {"metadata", "annotations", api::kScheduledAtAnnotation}), formatRfc3339(first));
  EXPECT_EQ(str(run, {"metadata", "labels", "team"}), "perf");
  EXPECT_EQ(str(run, {"metadata", "ownerReferences"}).find("DistBenchmarkSchedule") != std::string::npos,
            true);
  EXPECT_EQ(str(run, {"spec", "topology", "trainers"}), "2");
  // Nothing to compare with yet.
  EXPECT_FALSE(run.at("spec").has_field("baseline"));
  ASSERT_TRUE(eventually([&] {
    const value s = get("every");
    return str(s, {"status", "lastScheduleTime"}) == formatRfc3339(first) &&
           str(s, {"status", "active"}).find(name) != std::string::npos;
  }));

  // The next firing, once the first run has ended.
  finish(name, "Succeeded", fixture("report/tutorial-run.json"));
  const SystemTime second = first + 60s;
  setNow(second + 1s);
  const std::string name2 = "every-" + std::to_string(minutesOf(second));
  ASSERT_TRUE(eventually([&] {
    const auto names = runNames("every");
    return std::find(names.begin(), names.end(), name2) != names.end();
  }));
  // Sent once the status that records the run is written.
  EXPECT_TRUE(eventually([&] { return sawEvent("Normal RunStarted: started run " + name2); }));
}

TEST_F(ScheduleControllerTest, ForbidWaitsForTheActiveRunAndReplaceDeletesIt) {
  const value created = create(schedule("forbid", "* * * * *"));
  const SystemTime since = parseRfc3339(str(created, {"metadata", "creationTimestamp"})).value();
  const SystemTime first = nextMinute(since);
  setNow(first + 1s);
  start();
  const std::string run1 = "forbid-" + std::to_string(minutesOf(first));
  ASSERT_TRUE(eventually([&] { return runNames("forbid").size() == 1; }));

  setNow(first + 61s);  // the next firing, the first run still active
  ASSERT_TRUE(eventually([&] { return sawEvent("Normal RunSkipped"); }));
  EXPECT_EQ(runNames("forbid"), std::vector<std::string>{run1});

  // It ends: the waiting firing runs late, within no deadline.
  finish(run1, "Failed");
  const std::string run2 = "forbid-" + std::to_string(minutesOf(first + 60s));
  ASSERT_TRUE(eventually([&] { return runNames("forbid").size() == 2; }));
  EXPECT_EQ(runNames("forbid"), (std::vector<std::string>{run1, run2}));

  value replace = value::object();
  replace["concurrencyPolicy"] = value::string("Replace");
  patchSpec("forbid", replace);
  setNow(first + 121s);
  const std::string run3 = "forbid-" + std::to_string(minutesOf(first + 120s));
  ASSERT_TRUE(eventually([&] {
    const auto names = runNames("forbid");
    return std::find(names.begin(), names.end(), run3) != names.end() &&
           std::find(names.begin(), names.end(), run2) == names.end();
  }));
  EXPECT_TRUE(eventually([&] { return sawEvent("Normal RunReplaced: deleted active run " + run2); }));
}

TEST_F(ScheduleControllerTest, SuspendedStartsNothingAndResumesWithOneCatchUpRun) {
  value spec = value::object();
  spec["suspend"] = value::boolean(true);
  const value created = create(schedule("paused", "* * * * *", spec));
  const SystemTime since = parseRfc3339(str(created, {"metadata", "creationTimestamp"})).value();
  setNow(since + 10min);
  start();
  ASSERT_TRUE(eventually([&] { return !str(get("paused"), {"status", "nextScheduleTime"}).empty(); }));
  EXPECT_TRUE(runNames("paused").empty());

  value resume = value::object();
  resume["suspend"] = value::boolean(false);
  patchSpec("paused", resume);
  // Ten firings passed while suspended: one run, for the latest.
  const SystemTime latest = SystemTime(std::chrono::minutes(minutesOf(since + 10min)));
  ASSERT_TRUE(eventually([&] { return runNames("paused").size() == 1; }));
  EXPECT_EQ(runNames("paused").at(0), "paused-" + std::to_string(minutesOf(latest)));
}

TEST_F(ScheduleControllerTest, DowntimeCatchesUpOnceWithinTheStartingDeadlineAndNeverPastIt) {
  value spec = value::object();
  spec["startingDeadlineSeconds"] = value::number(120);
  const value created = create(schedule("late", "0 * * * *", spec));
  const SystemTime since = parseRfc3339(str(created, {"metadata", "creationTimestamp"})).value();
  // The operator comes back 3 hours later, 30 s after a firing: one run.
  const SystemTime hour = SystemTime(std::chrono::hours(
      std::chrono::duration_cast<std::chrono::hours>(since.time_since_epoch()).count() + 3));
  setNow(hour + 30s);
  start();
  ASSERT_TRUE(eventually([&] { return runNames("late").size() == 1; }));
  EXPECT_EQ(runNames("late").at(0), "late-" + std::to_string(minutesOf(hour)));
  finish(runNames("late").at(0), "Failed");
  ASSERT_TRUE(eventually([&] { return str(get("late"), {"status", "consecutiveFailures"}) == "1"; }));
  stop();

  // Down again, back 10 minutes after the next firing: past the deadline.
  setNow(hour + 1h + 10min);
  start();
  ASSERT_TRUE(eventually([&] { return sawEvent("Warning MissedSchedule"); }));
  EXPECT_EQ(runNames("late").size(), 1u);
  EXPECT_EQ(str(get("late"), {"status", "nextScheduleTime"}), formatRfc3339(hour + 2h));
  // Reconciled again and again, a run is accounted once.
  EXPECT_EQ(str(get("late"), {"status", "consecutiveFailures"}), "1");
  EXPECT_EQ(str(get("late"), {"status", "lastRun", "scheduledTime"}), formatRfc3339(hour));
}

TEST_F(ScheduleControllerTest, FinishedRunsPastTheHistoryLimitsAreDeleted) {
  value spec = value::object();
  spec["successfulRunsHistoryLimit"] = value::number(2);
  spec["failedRunsHistoryLimit"] = value::number(1);
  const value created = create(schedule("history", "* * * * *", spec));
  const SystemTime since = parseRfc3339(str(created, {"metadata", "creationTimestamp"})).value();
  SystemTime t = nextMinute(since);
  start();
  std::vector<std::string> made;
  const std::vector<std::string> outcomes = {"Succeeded", "Failed", "Succeeded", "Failed",
                                             "Succeeded", "Succeeded"};
  for (const std::string& outcome : outcomes) {
    setNow(t + 1s);
    const std::string name = "history-" + std::to_string(minutesOf(t));
    ASSERT_TRUE(eventually([&] {
      const auto names = runNames("history");
      return std::find(names.begin(), names.end(), name) != names.end();
    })) << name;
    finish(name, outcome, outcome == "Succeeded" ? fixture("report/tutorial-run.json") : "",
           outcome == "Succeeded" && made.size() > 0 ? "False" : "");
    made.push_back(name);
    ASSERT_TRUE(eventually([&] { return str(get("history"), {"status", "lastRun", "name"}) == name; }));
    t += 60s;
  }
  // The last two successes and the last failure stay.
  ASSERT_TRUE(eventually([&] {
    return runNames("history") == std::vector<std::string>{made[3], made[4], made[5]};
  })) << ::testing::PrintToString(runNames("history"));
}

TEST_F(ScheduleControllerTest, EachSuccessfulRunJoinsTheRollingBaselineUnlessItRegressed) {
  value spec = value::object();
  spec["baseline"]["runs"] = value::number(2);
  spec["baseline"]["thresholdPercent"] = value::number(10);
  const value created = create(schedule("rolling", "* * * * *", spec));
  const SystemTime since = parseRfc3339(str(created, {"metadata", "creationTimestamp"})).value();
  SystemTime t = nextMinute(since);
  start();
  const std::string report = fixture("report/tutorial-run.json");
  const std::string baselineCm = api::scheduleBaselineConfigMapName("rolling");
  auto pooled = [&]() -> std::string {
    try {
      const value cm = client_->get(corePath(ns_, "configmaps", baselineCm));
      std::string names;
      const value runs = value::parse(cm.at("data").at("runs.json").as_string());
      for (const value& e : runs.as_array()) names += e.at("name").as_string() + " ";
      return names;
    } catch (const KubeApiError&) {
      return "";
    }
  };
  auto runAt = [&](SystemTime at) {
    setNow(at + 1s);
    const std::string name = "rolling-" + std::to_string(minutesOf(at));
    EXPECT_TRUE(eventually([&] {
      const auto names = runNames("rolling");
      return std::find(names.begin(), names.end(), name) != names.end();
    })) << name;
    for (const value& r : runs("rolling"))
      if (r.at("metadata").at("name").as_string() == name) return std::make_pair(name, r);
    return std::make_pair(name, value());
  };

  auto [r1, run1] = runAt(t);
  EXPECT_FALSE(run1.at("spec").has_field("baseline"));
  finish(r1, "Succeeded", report);
  ASSERT_TRUE(eventually([&] { return pooled() == r1 + " "; })) << pooled();

  // One pooled run says nothing of how runs differ: not judged yet.
  t += 60s;
  auto [r2, run2] = runAt(t);
  EXPECT_FALSE(run2.at("spec").has_field("baseline"));
  finish(r2, "Succeeded", report);
  ASSERT_TRUE(eventually([&] { return pooled() == r1 + " " + r2 + " "; })) << pooled();
  EXPECT_EQ(str(get("rolling"), {"status", "lastRun", "verdict"}), "NoBaseline");
  const value cm = client_->get(corePath(ns_, "configmaps", baselineCm));
  EXPECT_EQ(str(cm, {"metadata", "labels", "distbench.io/baseline"}), "true");
  const report::Report pool = report::parseReport(cm.at("data").at("baseline.json").as_string());
  const report::Report one = report::parseReport(report);
  ASSERT_FALSE(pool.series.empty());
  EXPECT_EQ(pool.series[0].samples.size(), 2 * one.series[0].samples.size());

  // Judged from here on; a regression is reported and kept out of the pool.
  t += 60s;
  auto [r3, run3] = runAt(t);
  EXPECT_EQ(str(run3, {"spec", "baseline", "configMap", "name"}), baselineCm);
  EXPECT_EQ(str(run3, {"spec", "baseline", "configMap", "key"}), "baseline.json");
  EXPECT_EQ(str(run3, {"spec", "baseline", "thresholdPercent"}), "10");
  finish(r3, "Succeeded", slower(report, 1.5), "True");
  ASSERT_TRUE(eventually([&] {
    const value s = get("rolling");
    return str(s, {"status", "lastRun", "name"}) == r3 &&
           str(s, {"status", "lastRun", "verdict"}) == "Regression";
  }));
  EXPECT_TRUE(eventually([&] { return sawEvent("Warning RegressionDetected: run " + r3); }));
  EXPECT_EQ(pooled(), r1 + " " + r2 + " ");
  const value s = get("rolling");
  EXPECT_EQ(str(s, {"status", "lastRun", "worstRow"}), "HybridDDPRPC / All: median +50%");
  const value rows = s.at("status").at("lastRun").at("rows");
  ASSERT_GT(rows.size(), 0u);
  const double p50 = rows.at(0).at("p50Seconds").as_double();
  const double base = rows.at(0).at("baselineP50Seconds").as_double();
  EXPECT_NEAR(p50 / base, 1.5, 0.2);

  // The next good run pushes the oldest out (runs: 2).
  t += 60s;
  auto [r4, run4] = runAt(t);
  finish(r4, "Succeeded", report, "False");
  ASSERT_TRUE(eventually([&] { return pooled() == r2 + " " + r4 + " "; })) << pooled();
  ASSERT_TRUE(eventually([&] {
    return str(get("rolling"), {"status", "baseline", "runs"}) ==
           value::array({value::string(r2), value::string(r4)}).serialize();
  })) << str(get("rolling"), {"status", "baseline"});
  EXPECT_EQ(str(get("rolling"), {"status", "consecutiveFailures"}), "0");
}

TEST_F(ScheduleControllerTest, AnInvalidScheduleSaysWhyAndStartsNothing) {
  create(schedule("broken", "0 0 30 2 *"));
  start();
  setNow(now() + 24h);
  ASSERT_TRUE(eventually([&] {
    const value s = get("broken");
    return str(s, {"status", "conditions"}).find("InvalidSpec") != std::string::npos;
  }));
  EXPECT_TRUE(eventually([&] { return sawEvent("Warning InvalidSpec: invalid spec:"); }));
  EXPECT_TRUE(runNames("broken").empty());
}

// A firing that falls due while kube-apiserver and etcd are down: each
// reconcile of the schedule fails with no answer and is retried. Once they
// are back the run starts soon, once, and is accounted once. (The server
// restarted here answers the informers' resumed watches with 410, so they
// list again and every schedule is looked at at once; a retry's backoff
// capped for "no answer", which matters when the watches resume without
// that, is work_queue_test's and worker_pool_test's.)
TEST_F(ScheduleControllerTest, AFiringDuringAnApiOutageCatchesUpExactlyOnce) {
  value spec = value::object();
  spec["startingDeadlineSeconds"] = value::number(120);
  const value created = create(schedule("outage", "* * * * *", spec));
  const SystemTime since = parseRfc3339(str(created, {"metadata", "creationTimestamp"})).value();
  const SystemTime firing = nextMinute(since);
  setNow(since);
  start();
  ASSERT_TRUE(eventually([&] {
    return str(get("outage"), {"status", "nextScheduleTime"}) == formatRfc3339(firing);
  }));

  const std::string run = "outage-" + std::to_string(minutesOf(firing));
  std::chrono::steady_clock::time_point back;
  {
    kubetest::ControlPlaneOutage outage(*cluster_);
    setNow(firing + 1s);
    outage.endAfter(5s);
    back = std::chrono::steady_clock::now();
  }
  ASSERT_TRUE(eventually([&] { return runNames("outage") == std::vector<std::string>{run}; }));
  const double late =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - back).count();
  std::fprintf(stderr,
               "the missed firing's run started %.1f s after the API server's return; the "
               "schedules' informer listed again %lld times\n",
               late, static_cast<long long>(controller_->schedules().relists()));
  // The informers' reconnect (1 s backoff cap here), the reconcile, and a
  // loaded machine's slack.
  EXPECT_LT(late, 8.0);
  EXPECT_EQ(str(runs("outage").at(0), {"metadata", "annotations", api::kScheduledAtAnnotation}),
            formatRfc3339(firing));

  finish(run, "Failed");
  ASSERT_TRUE(eventually([&] {
    const value s = get("outage");
    return str(s, {"status", "consecutiveFailures"}) == "1" &&
           str(s, {"status", "lastRun", "scheduledTime"}) == formatRfc3339(firing);
  })) << str(get("outage"), {"status"});
  // Looked at again, with the firing still within its deadline: no second
  // run, no second count.
  const int reconciled = reconciledOk_;
  setNow(firing + 2s);
  ASSERT_TRUE(eventually([&] { return reconciledOk_ > reconciled; }));
  EXPECT_EQ(runNames("outage"), std::vector<std::string>{run});
  EXPECT_EQ(str(get("outage"), {"status", "consecutiveFailures"}), "1");
}

}  // namespace
}  // namespace distbench::op
