// The DistBenchmarkSchedule controller against a real API server, on a
// clock the test moves: runs start at their firings and are named by them,
// concurrency policies, suspend, catch-up after downtime, history limits,
// and the rolling baseline kept from the runs' stored reports; forged runs,
// a report too large for the pool, and writes the server refuses. No
// DistBenchmark controller runs here: the test plays its part by writing a
// run's status and report ConfigMap, as the other kube tests play the
// kubelet's.
#include "distbench/operator/schedules/schedule_controller.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>
#include <vector>

#include "distbench/api/object_names.h"
#include "distbench/api/schedule_spec.h"
#include "distbench/kube/json_fields.h"
#include "distbench/operator/benchmarks/reconciler.h"
#include "distbench/operator/schedules/schedule_controller.h"
#include "distbench/report/baseline_pool.h"
#include "distbench/report/report.h"
#include "distbench/report/report_json.h"
#include "distbench/testing/kube/control_plane_outage.h"
#include "distbench/testing/kube/kube_test_helpers.h"
#include "distbench/testing/kube/operator_process.h"
#include "support/benchmark_namespace_test.h"

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

int64_t minutesOf(kube::SystemTime t) {
  return std::chrono::duration_cast<std::chrono::minutes>(t.time_since_epoch()).count();
}

// The start of the minute after `t`.
kube::SystemTime nextMinute(kube::SystemTime t) {
  return kube::SystemTime(std::chrono::minutes(minutesOf(t) + 1));
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
    if (!webhook_.empty()) removeWebhook();
  }

  void start() {
    ScheduleControllerOptions o;
    o.ns = ns_;
    o.runtime.workers = 1;
    o.informer.backoffMax = 1s;
    o.runtime.queue = queue_;
    o.reconciler.now = [this] {
      std::lock_guard<std::mutex> lock(clockMutex_);
      return now_;
    };
    o.reconciler.onEvent = [this](const value&, bool warning, const std::string& reason,
                                  const std::string& message) {
      std::lock_guard<std::mutex> lock(eventsMutex_);
      events_.push_back((warning ? "Warning " : "Normal ") + reason + ": " + message);
    };
    o.runtime.onReconciled = [this](const std::string& key, std::chrono::duration<double>,
                                    const kube::Result&, const std::string* error) {
      if (!error) {
        ++reconciledOk_;
        return;
      }
      std::fprintf(stderr, "reconcile %s: %s\n", key.c_str(), error->c_str());
      std::lock_guard<std::mutex> lock(eventsMutex_);
      errors_.push_back(key + ": " + *error);
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
  void setNow(kube::SystemTime t) {
    {
      std::lock_guard<std::mutex> lock(clockMutex_);
      now_ = t;
    }
    if (controller_) controller_->enqueueAll();
  }
  kube::SystemTime now() {
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
    const value list =
        client_->get(kubetest::establishedCrd().path(ns_) + "?labelSelector=" +
                     kube::queryEscape(std::string(api::kScheduleLabel) + "=" + schedule));
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
    status["completionTime"] = value::string(kube::formatRfc3339(now()));
    status["results"]["p50"] = value::string("0.123s");
    value conditions = value::array();
    if (phase == "Succeeded") {
      value stored = value::object();
      stored["type"] = value::string("ReportStored");
      stored["status"] = value::string(reportJson.empty() ? "False" : "True");
      stored["reason"] = value::string(reportJson.empty() ? "ReportMissing" : "Stored");
      stored["message"] = value::string("m");
      stored["lastTransitionTime"] = value::string(kube::formatRfc3339(now()));
      conditions[0] = stored;
      if (!regression.empty()) {
        value r = value::object();
        r["type"] = value::string("RegressionDetected");
        r["status"] = value::string(regression);
        r["reason"] = value::string(regression == "True" ? "RegressionDetected" : "NoRegression");
        r["message"] = value::string(regression == "True" ? "1 of 1 rows regressed" : "none");
        r["lastTransitionTime"] = value::string(kube::formatRfc3339(now()));
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
      client_->create(kube::corePath(ns_, "configmaps"), cm);
    }
    b["status"] = status;
    client_->replace(path + "/status", b);
  }

  // A DistBenchmark made by someone who may create DistBenchmarks in the
  // namespace, and nothing more: it says it is schedule `schedule`'s run
  // (its label, its controller reference: the API server takes one without
  // blockOwnerDeletion from anyone) of a firing far ahead.
  void forgeRun(const std::string& name, const std::string& schedule, const std::string& uid) {
    value b = value::object();
    b["apiVersion"] = value::string("distbench.io/v1alpha1");
    b["kind"] = value::string("DistBenchmark");
    b["metadata"]["name"] = value::string(name);
    b["metadata"]["labels"][api::kScheduleLabel] = value::string(schedule);
    b["metadata"]["annotations"][api::kScheduledAtAnnotation] =
        value::string("2100-01-01T00:00:00Z");
    value ref = value::object();
    ref["apiVersion"] = value::string("distbench.io/v1alpha1");
    ref["kind"] = value::string("DistBenchmarkSchedule");
    ref["name"] = value::string(schedule);
    ref["uid"] = value::string(uid);
    ref["controller"] = value::boolean(true);
    b["metadata"]["ownerReferences"] = value::array({ref});
    b["spec"]["topology"]["trainers"] = value::number(2);
    b["spec"]["topology"]["parameterServers"] = value::number(1);
    client_->create(kubetest::establishedCrd().path(ns_), b);
  }

  // The pooled runs' names in `schedule`'s baseline ConfigMap, each
  // followed by a space.
  std::string pooled(const std::string& schedule) {
    try {
      const value cm = client_->get(
          kube::corePath(ns_, "configmaps", api::scheduleBaselineConfigMapName(schedule)));
      std::string names;
      const value runs = value::parse(cm.at("data").at("runs.json").as_string());
      for (const value& e : runs.as_array()) names += e.at("name").as_string() + " ";
      return names;
    } catch (const kube::KubeApiError&) {
      return "";
    }
  }

  // "<status> <reason>: <message>" of the schedule's condition `type`.
  std::string condition(const std::string& schedule, const std::string& type) {
    const value s = get(schedule);
    if (!s.has_field("status") || !s.at("status").has_field("conditions")) return "";
    for (const value& c : s.at("status").at("conditions").as_array())
      if (str(c, {"type"}) == type)
        return str(c, {"status"}) + " " + str(c, {"reason"}) + ": " + str(c, {"message"});
    return "";
  }

  // A validating webhook that is down (failurePolicy Fail: every request it
  // covers gets 500 "failed calling webhook") on `operation` of `resource`,
  // for objects labelled `label`=`value` only.
  void deadWebhook(const std::string& group, const std::string& resource,
                   const std::string& operation, const std::string& label,
                   const std::string& labelValue) {
    webhook_ = "dead-" + ns_;
    const value config = kubetest::deadWebhookConfiguration(
        webhook_, group, group.empty() ? "v1" : "v1alpha1", resource, operation, label, labelValue);
    client_->create(webhooksPath(), config);
  }

  void removeWebhook() {
    try {
      client_->remove(webhooksPath() + "/" + webhook_);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "could not delete webhook " << webhook_ << ": " << e.what();
    }
    webhook_.clear();
  }

  static std::string webhooksPath() {
    return kube::groupPath("admissionregistration.k8s.io", "v1", "",
                           "validatingwebhookconfigurations");
  }

  std::vector<std::string> errors() {
    std::lock_guard<std::mutex> lock(eventsMutex_);
    return errors_;
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

  kube::WorkQueueOptions queue_;      // set before start()
  std::atomic<int> reconciledOk_{0};  // reconciles that ended without an error
  std::unique_ptr<ScheduleController> controller_;
  std::mutex clockMutex_;
  kube::SystemTime now_;
  std::mutex eventsMutex_;
  std::vector<std::string> events_;
  std::vector<std::string> errors_;  // "<key>: <what the reconcile threw>"
  std::string webhook_;
};

// The tutorial run with its samples repeated until its report, trimmed for
// the pool, is over 600 KiB: under the 900 KiB the report store takes,
// over half of a ConfigMap.
std::string reportTooLargeForThePool() {
  report::Report r = report::parseReport(fixture("report/tutorial-run.json"));
  const report::Report one = r;
  while (report::toJson(report::trimmedForBaseline(r)).size() <= 600 * 1024)
    for (std::size_t i = 0; i < r.series.size(); ++i)
      r.series[i].samples.insert(r.series[i].samples.end(), one.series[i].samples.begin(),
                                 one.series[i].samples.end());
  return report::toJson(r);
}

TEST_F(ScheduleControllerTest, StartsARunAtEachFiringNamedByItsTime) {
  const value created = create(schedule("every", "* * * * *"));
  const kube::SystemTime since =
      kube::parseRfc3339(str(created, {"metadata", "creationTimestamp"})).value();
  setNow(since);
  start();
  ASSERT_TRUE(eventually([&] { return !str(get("every"), {"status", "nextScheduleTime"}).empty(); }));
  EXPECT_TRUE(runNames("every").empty());
  EXPECT_EQ(str(get("every"), {"status", "nextScheduleTime"}),
            kube::formatRfc3339(nextMinute(since)));

  const kube::SystemTime first = nextMinute(since);
  setNow(first + 2s);
  const std::string name = "every-" + std::to_string(minutesOf(first));
  ASSERT_TRUE(eventually([&] { return runNames("every") == std::vector<std::string>{name}; }));
  const value run = runs("every").at(0);
  EXPECT_EQ(str(run, {"metadata", "annotations", api::kScheduledAtAnnotation}),
            kube::formatRfc3339(first));
  EXPECT_EQ(str(run, {"metadata", "labels", "team"}), "perf");
  EXPECT_EQ(str(run, {"metadata", "ownerReferences"}).find("DistBenchmarkSchedule") != std::string::npos,
            true);
  EXPECT_EQ(str(run, {"spec", "topology", "trainers"}), "2");
  // Nothing to compare with yet.
  EXPECT_FALSE(run.at("spec").has_field("baseline"));
  ASSERT_TRUE(eventually([&] {
    const value s = get("every");
    return str(s, {"status", "lastScheduleTime"}) == kube::formatRfc3339(first) &&
           str(s, {"status", "active"}).find(name) != std::string::npos;
  }));

  // The next firing, once the first run has ended.
  finish(name, "Succeeded", fixture("report/tutorial-run.json"));
  const kube::SystemTime second = first + 60s;
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
  const kube::SystemTime since =
      kube::parseRfc3339(str(created, {"metadata", "creationTimestamp"})).value();
  const kube::SystemTime first = nextMinute(since);
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
  const kube::SystemTime since =
      kube::parseRfc3339(str(created, {"metadata", "creationTimestamp"})).value();
  setNow(since + 10min);
  start();
  ASSERT_TRUE(eventually([&] { return !str(get("paused"), {"status", "nextScheduleTime"}).empty(); }));
  EXPECT_TRUE(runNames("paused").empty());

  value resume = value::object();
  resume["suspend"] = value::boolean(false);
  patchSpec("paused", resume);
  // Ten firings passed while suspended: one run, for the latest.
  const kube::SystemTime latest = kube::SystemTime(std::chrono::minutes(minutesOf(since + 10min)));
  ASSERT_TRUE(eventually([&] { return runNames("paused").size() == 1; }));
  EXPECT_EQ(runNames("paused").at(0), "paused-" + std::to_string(minutesOf(latest)));
}

TEST_F(ScheduleControllerTest, DowntimeCatchesUpOnceWithinTheStartingDeadlineAndNeverPastIt) {
  value spec = value::object();
  spec["startingDeadlineSeconds"] = value::number(120);
  const value created = create(schedule("late", "0 * * * *", spec));
  const kube::SystemTime since =
      kube::parseRfc3339(str(created, {"metadata", "creationTimestamp"})).value();
  // The operator comes back 3 hours later, 30 s after a firing: one run.
  const kube::SystemTime hour = kube::SystemTime(std::chrono::hours(
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
  EXPECT_EQ(str(get("late"), {"status", "nextScheduleTime"}), kube::formatRfc3339(hour + 2h));
  // Reconciled again and again, a run is accounted once.
  EXPECT_EQ(str(get("late"), {"status", "consecutiveFailures"}), "1");
  EXPECT_EQ(str(get("late"), {"status", "lastRun", "scheduledTime"}), kube::formatRfc3339(hour));
}

TEST_F(ScheduleControllerTest, FinishedRunsPastTheHistoryLimitsAreDeleted) {
  value spec = value::object();
  spec["successfulRunsHistoryLimit"] = value::number(2);
  spec["failedRunsHistoryLimit"] = value::number(1);
  const value created = create(schedule("history", "* * * * *", spec));
  const kube::SystemTime since =
      kube::parseRfc3339(str(created, {"metadata", "creationTimestamp"})).value();
  kube::SystemTime t = nextMinute(since);
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
  const kube::SystemTime since =
      kube::parseRfc3339(str(created, {"metadata", "creationTimestamp"})).value();
  kube::SystemTime t = nextMinute(since);
  start();
  const std::string report = fixture("report/tutorial-run.json");
  const std::string baselineCm = api::scheduleBaselineConfigMapName("rolling");
  auto pooled = [&]() -> std::string {
    try {
      const value cm = client_->get(kube::corePath(ns_, "configmaps", baselineCm));
      std::string names;
      const value runs = value::parse(cm.at("data").at("runs.json").as_string());
      for (const value& e : runs.as_array()) names += e.at("name").as_string() + " ";
      return names;
    } catch (const kube::KubeApiError&) {
      return "";
    }
  };
  auto runAt = [&](kube::SystemTime at) {
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
  const value cm = client_->get(kube::corePath(ns_, "configmaps", baselineCm));
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

// A user who may create DistBenchmarks forges runs of someone else's
// schedule: one under the next firing's name, one finished with a report.
// The schedule counts only what it created: the forged ones are not
// adopted, pooled, accounted or waited for, nor deleted.
TEST_F(ScheduleControllerTest, AForgedRunIsNeitherCountedPooledNorAdopted) {
  value spec = value::object();
  spec["baseline"]["runs"] = value::number(2);
  const value created = create(schedule("forged", "* * * * *", spec));
  const std::string uid = str(created, {"metadata", "uid"});
  const kube::SystemTime since =
      kube::parseRfc3339(str(created, {"metadata", "creationTimestamp"})).value();
  const kube::SystemTime first = nextMinute(since);
  setNow(since);
  start();
  ASSERT_TRUE(eventually([&] {
    return str(get("forged"), {"status", "nextScheduleTime"}) == kube::formatRfc3339(first);
  }));
  const std::string guessed = "forged-" + std::to_string(minutesOf(first));
  forgeRun(guessed, "forged", uid);
  forgeRun("forged-evil", "forged", uid);
  finish("forged-evil", "Succeeded", fixture("report/tutorial-run.json"));

  setNow(first + 1s);
  ASSERT_TRUE(eventually([&] {
    return sawEvent("Warning RunNameTaken: DistBenchmark " + ns_ + "/" + guessed +
                    " exists and was not created by this schedule");
  })) << ::testing::PrintToString(runNames("forged"));
  // Started under a name the server made up.
  std::string real, realUid;
  ASSERT_TRUE(eventually([&] {
    for (const value& r : runs("forged")) {
      const std::string name = str(r, {"metadata", "name"});
      if (name != guessed && name != "forged-evil") {
        real = name;
        realUid = str(r, {"metadata", "uid"});
      }
    }
    return !real.empty();
  }));
  EXPECT_EQ(real.rfind("forged-", 0), 0u);
  EXPECT_TRUE(sawEvent("Warning RunNameTaken: DistBenchmark " + ns_ + "/" + guessed +
                       " exists and was not created by this schedule; the run due at " +
                       kube::formatRfc3339(first) + " starts as " + real));
  ASSERT_TRUE(eventually([&] {
    const value s = get("forged");
    return str(s, {"status", "active"}) ==
           value::array(
               {value::parse(R"({"name": ")" + real + R"(", "uid": ")" + realUid + R"("})")})
               .serialize();
  })) << str(get("forged"), {"status"});
  EXPECT_EQ(str(get("forged"), {"status", "runs"}).find("forged-evil"), std::string::npos);
  EXPECT_EQ(str(get("forged"), {"status", "lastRun"}), "");
  EXPECT_EQ(pooled("forged"), "");

  finish(real, "Succeeded", fixture("report/tutorial-run.json"));
  ASSERT_TRUE(eventually([&] {
    return str(get("forged"), {"status", "lastRun", "name"}) == real;
  }));
  EXPECT_EQ(str(get("forged"), {"status", "lastRun", "scheduledTime"}), kube::formatRfc3339(first));
  ASSERT_TRUE(eventually([&] { return pooled("forged") == real + " "; })) << pooled("forged");

  // The forged run under the guessed name is still "active" (it has no
  // status): Forbid does not wait for it.
  const std::string second = "forged-" + std::to_string(minutesOf(first + 60s));
  setNow(first + 61s);
  ASSERT_TRUE(eventually([&] {
    const auto names = runNames("forged");
    return std::find(names.begin(), names.end(), second) != names.end();
  })) << ::testing::PrintToString(runNames("forged"));
  // Left alone.
  const auto names = runNames("forged");
  EXPECT_NE(std::find(names.begin(), names.end(), guessed), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "forged-evil"), names.end());
  EXPECT_EQ(pooled("forged"), real + " ");
}

// runs.json and baseline.json each hold a pooled run's samples: one report
// over half a ConfigMap cannot be pooled even alone. It is left out, said
// so, and the schedule goes on.
TEST_F(ScheduleControllerTest, ARunTooLargeForThePoolIsRefusedAndTheScheduleGoesOn) {
  const value created = create(schedule("big", "* * * * *"));
  const kube::SystemTime since =
      kube::parseRfc3339(str(created, {"metadata", "creationTimestamp"})).value();
  const kube::SystemTime first = nextMinute(since);
  setNow(first + 1s);
  start();
  const std::string r1 = "big-" + std::to_string(minutesOf(first));
  ASSERT_TRUE(eventually([&] { return runNames("big") == std::vector<std::string>{r1}; }));
  finish(r1, "Succeeded", reportTooLargeForThePool());
  ASSERT_TRUE(eventually([&] {
    return str(get("big"), {"status", "lastRun", "name"}) == r1;
  })) << ::testing::PrintToString(errors());
  EXPECT_TRUE(eventually([&] { return sawEvent("Warning BaselineTooLarge: run " + r1); }));
  const std::string stored = condition("big", "BaselineStored");
  EXPECT_EQ(stored.rfind("False ReportTooLarge: run " + r1 + " is not pooled", 0), 0u) << stored;
  EXPECT_NE(stored.find("1044480"), std::string::npos) << stored;
  EXPECT_EQ(pooled("big"), "");

  const std::string r2 = "big-" + std::to_string(minutesOf(first + 60s));
  setNow(first + 61s);
  ASSERT_TRUE(eventually([&] {
    const auto names = runNames("big");
    return std::find(names.begin(), names.end(), r2) != names.end();
  })) << ::testing::PrintToString(errors());
  // A run of ordinary size joins the pool.
  finish(r2, "Succeeded", fixture("report/tutorial-run.json"));
  ASSERT_TRUE(eventually([&] { return pooled("big") == r2 + " "; })) << pooled("big");
  EXPECT_TRUE(eventually([&] {
    return condition("big", "BaselineStored").rfind("True Stored: run " + r2, 0) == 0;
  })) << condition("big", "BaselineStored");
}

// The server refuses every update of the pool (an admission webhook that
// is down): the run is accounted without joining the pool, the condition
// and an Event say why, and the next firing starts.
TEST_F(ScheduleControllerTest, APoolWriteTheServerRefusesIsAConditionAndTheScheduleGoesOn) {
  const value created = create(schedule("refused", "* * * * *"));
  const kube::SystemTime since =
      kube::parseRfc3339(str(created, {"metadata", "creationTimestamp"})).value();
  const kube::SystemTime first = nextMinute(since);
  deadWebhook("", "configmaps", "UPDATE", api::kScheduleLabel, "refused");
  setNow(first + 1s);
  start();
  const std::string r1 = "refused-" + std::to_string(minutesOf(first));
  ASSERT_TRUE(eventually([&] { return runNames("refused") == std::vector<std::string>{r1}; }));
  finish(r1, "Succeeded", fixture("report/tutorial-run.json"));
  ASSERT_TRUE(eventually([&] {
    return str(get("refused"), {"status", "lastRun", "name"}) == r1;
  })) << ::testing::PrintToString(errors());
  const std::string stored = condition("refused", "BaselineStored");
  EXPECT_EQ(stored.rfind("False PoolWriteRefused: run " + r1 + " is not pooled", 0), 0u) << stored;
  EXPECT_NE(stored.find("failed calling webhook"), std::string::npos) << stored;
  EXPECT_TRUE(eventually([&] { return sawEvent("Warning PoolWriteRefused: run " + r1); }));

  const std::string r2 = "refused-" + std::to_string(minutesOf(first + 60s));
  setNow(first + 61s);
  ASSERT_TRUE(eventually([&] {
    const auto names = runNames("refused");
    return std::find(names.begin(), names.end(), r2) != names.end();
  })) << ::testing::PrintToString(errors());
}

// The server refuses the schedule's own status (a webhook that is down on
// it): no reconcile fails (which would hold the schedule in backoff, up to
// 1000 s between tries, past its firings), runs start at their firings,
// and the runs created meanwhile are recorded once a status lands.
TEST_F(ScheduleControllerTest, AStatusTheServerRefusesStopsNoFiring) {
  value s = schedule("unwritable", "* * * * *");
  s["metadata"]["labels"]["hook"] = value::string("dead");
  const value created = create(s);
  const kube::SystemTime since =
      kube::parseRfc3339(str(created, {"metadata", "creationTimestamp"})).value();
  const kube::SystemTime first = nextMinute(since);
  deadWebhook("distbench.io", "distbenchmarkschedules/status", "UPDATE", "hook", "dead");
  setNow(first + 1s);
  start();
  const std::string r1 = "unwritable-" + std::to_string(minutesOf(first));
  ASSERT_TRUE(eventually([&] { return runNames("unwritable") == std::vector<std::string>{r1}; }));
  ASSERT_TRUE(eventually([&] {
    return sawEvent("Warning StatusRefused: the API server refused the schedule's status (500");
  }));
  // Forbid: the next firing waits for r1, which only the operator's memory
  // records; it starts once r1 ends.
  setNow(first + 61s);
  finish(r1, "Failed");
  const std::string r2 = "unwritable-" + std::to_string(minutesOf(first + 60s));
  ASSERT_TRUE(eventually([&] { return runNames("unwritable").size() == 2; }));
  EXPECT_EQ(runNames("unwritable"), (std::vector<std::string>{r1, r2}));
  EXPECT_EQ(errors(), std::vector<std::string>{});

  // Taken again: both runs recorded, the failure accounted.
  removeWebhook();
  int polls = 0;
  ASSERT_TRUE(eventually([&] {
    if (polls++ % 25 == 0) controller_->enqueueAll();
    const value st = get("unwritable");
    const std::string runsText = str(st, {"status", "runs"});
    return runsText.find(r1) != std::string::npos && runsText.find(r2) != std::string::npos &&
           str(st, {"status", "lastRun", "name"}) == r1;
  })) << str(get("unwritable"), {"status"});
  EXPECT_EQ(str(get("unwritable"), {"status", "consecutiveFailures"}), "1");
  EXPECT_EQ(runNames("unwritable").size(), 2u);
}

// An operator from before status.runs may have accounted a forged run of a
// firing far ahead, and runs up to lastRun.scheduledTime count as
// accounted: no real run would be again. No run of the schedule is later
// than its last firing, so such a lastRun is not believed.
TEST_F(ScheduleControllerTest, ALastRunLaterThanTheLastFiringDoesNotStopAccounting) {
  const value created = create(schedule("poisoned", "* * * * *"));
  const kube::SystemTime since =
      kube::parseRfc3339(str(created, {"metadata", "creationTimestamp"})).value();
  const kube::SystemTime first = nextMinute(since);
  setNow(first + 1s);
  start();
  const std::string r1 = "poisoned-" + std::to_string(minutesOf(first));
  ASSERT_TRUE(eventually([&] {
    return str(get("poisoned"), {"status", "runs"}).find(r1) != std::string::npos;
  }));
  stop();
  value patch = value::object();
  patch["status"]["lastRun"] = value::parse(R"({"name": "poisoned-evil", "phase": "Succeeded",
      "scheduledTime": "2100-01-01T00:00:00Z", "verdict": "NoBaseline"})");
  client_->mergePatch(kubetest::establishedScheduleCrd().path(ns_) + "/poisoned/status", patch);
  finish(r1, "Failed");
  start();
  ASSERT_TRUE(eventually([&] {
    return str(get("poisoned"), {"status", "lastRun", "name"}) == r1;
  })) << str(get("poisoned"), {"status"});
  EXPECT_EQ(str(get("poisoned"), {"status", "consecutiveFailures"}), "1");
}

// A report's group and row names are the user's: the status holds them cut
// to 128 bytes (the CRD's maxLength), with a hash that keeps them apart.
TEST_F(ScheduleControllerTest, AReportsLongRowNamesAreCutInTheStatus) {
  const value created = create(schedule("names", "* * * * *"));
  const kube::SystemTime since =
      kube::parseRfc3339(str(created, {"metadata", "creationTimestamp"})).value();
  const kube::SystemTime first = nextMinute(since);
  setNow(first + 1s);
  start();
  const std::string r1 = "names-" + std::to_string(minutesOf(first));
  ASSERT_TRUE(eventually([&] { return runNames("names") == std::vector<std::string>{r1}; }));
  report::Report r = report::parseReport(fixture("report/tutorial-run.json"));
  const std::string group(2000, 'G');
  for (report::Series& series : r.series) {
    series.group = group;
    series.row = series.row + std::string(300, '-');
  }
  finish(r1, "Succeeded", report::toJson(r));
  ASSERT_TRUE(eventually([&] {
    return str(get("names"), {"status", "lastRun", "name"}) == r1;
  })) << ::testing::PrintToString(errors());
  const value rows = get("names").at("status").at("lastRun").at("rows");
  ASSERT_EQ(rows.size(), r.series.size());
  for (const value& row : rows.as_array()) {
    EXPECT_EQ(str(row, {"group"}).size(), 128u);
    EXPECT_EQ(str(row, {"group"}).substr(0, 119), group.substr(0, 119));
    EXPECT_EQ(str(row, {"group"})[119], '~');
    EXPECT_EQ(str(row, {"row"}).size(), 128u);
  }
  // Still two rows.
  EXPECT_NE(str(rows.at(0), {"row"}), str(rows.at(1), {"row"}));
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
  const kube::SystemTime since =
      kube::parseRfc3339(str(created, {"metadata", "creationTimestamp"})).value();
  const kube::SystemTime firing = nextMinute(since);
  setNow(since);
  start();
  ASSERT_TRUE(eventually([&] {
    return str(get("outage"), {"status", "nextScheduleTime"}) == kube::formatRfc3339(firing);
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
            kube::formatRfc3339(firing));

  finish(run, "Failed");
  ASSERT_TRUE(eventually([&] {
    const value s = get("outage");
    return str(s, {"status", "consecutiveFailures"}) == "1" &&
           str(s, {"status", "lastRun", "scheduledTime"}) == kube::formatRfc3339(firing);
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
