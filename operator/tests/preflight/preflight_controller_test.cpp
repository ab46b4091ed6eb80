// The preflight gate against a real API server with Kueue v0.15.8's CRDs:
// the AdmissionCheck's Active condition, and a Workload's check through
// Ready, Retry (with its requeue delay and a suspect node tainted) and
// Rejected; a check that cannot know its nodes; a Workload evicted or
// deleted mid-check (nothing written, the run deleted); a gate restarted
// mid-check (the same run, not a second). Kueue's part is played by
// KueueHarness; the DistBenchmark controller's by the test, which writes
// the check run's status as that controller writes it (fabricOutcome of a
// simulated fabric report).
#include "distbench/operator/preflight/preflight_controller.h"

#include <gtest/gtest.h>

#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "distbench/api/preflight_policy.h"
#include "distbench/kube/json_fields.h"
#include "distbench/operator/benchmarks/fabric_suspects.h"
#include "distbench/operator/common/crd_names.h"
#include "distbench/report/fabric.h"
#include "distbench/report/fabric_simulate.h"
#include "support/benchmark_namespace_test.h"
#include "support/kueue_harness.h"

namespace distbench::op {
namespace {

using web::json::value;
using namespace std::chrono_literals;
using kubetest::eventually;

class PreflightControllerTest : public kubetest::BenchmarkNamespaceTest {
 protected:
  PreflightControllerTest() : BenchmarkNamespaceTest("gate") {}

  void SetUp() override {
    BenchmarkNamespaceTest::SetUp();
    if (!cluster_) return;
    kubetest::establishedPreflightPolicyCrd();
    kubetest::establishedKueueWorkloadCrd();
    kubetest::establishedKueueAdmissionCheckCrd();
    kueue_ = std::make_unique<kubetest::KueueHarness>(*client_, ns_);
    // Names of cluster-scoped objects carry the namespace: the cluster is
    // shared by every test of the binary.
    check_ = ns_.substr(0, 40) + "-fabric";
    policy_ = ns_.substr(0, 40) + "-gate";
    for (int i = 0; i < 4; ++i) {
      hosts_.push_back(ns_.substr(0, 40) + "-node-" + std::to_string(i));
      createNode(hosts_.back());
    }
  }

  void TearDown() override {
    stop();
    if (!cluster_) return;
    for (const std::string& h : hosts_) removeQuietly(kube::corePath("", "nodes", h));
    removeQuietly(checksPath() + "/" + check_);
    removeQuietly(policiesPath() + "/" + policy_);
  }

  static std::string checksPath() { return "/apis/kueue.x-k8s.io/v1beta1/admissionchecks"; }
  static std::string policiesPath() { return "/apis/distbench.io/v1alpha1/distbenchpreflightpolicies"; }
  std::string runsPath() const { return kube::groupPath(kGroup, kVersion, ns_, kPlural); }

  void removeQuietly(const std::string& path) {
    try {
      client_->remove(path);
    } catch (const kube::KubeApiError&) {
    }
  }

  void createNode(const std::string& name) {
    value node = value::object();
    node["apiVersion"] = value::string("v1");
    node["kind"] = value::string("Node");
    node["metadata"]["name"] = value::string(name);
    node["metadata"]["labels"]["kubernetes.io/hostname"] = value::string(name);
    client_->create(kube::corePath("", "nodes"), node);
  }

  void createPolicy(const std::string& extra = "") {
    const std::string yaml = "apiVersion: distbench.io/v1alpha1\n"
                             "kind: DistBenchPreflightPolicy\n"
                             "metadata: {name: " + policy_ + "}\n"
                             "spec:\n"
                             "  template: {spec: {benchmark: {kind: Fabric}}}\n"
                             "  attempts: 2\n"
                             "  retryDelaySeconds: 30\n" + extra;
    const api::DistBenchPreflightPolicy p = api::parseDistBenchPreflightPolicy(yaml);
    value body = value::object();
    body["apiVersion"] = value::string("distbench.io/v1alpha1");
    body["kind"] = value::string("DistBenchPreflightPolicy");
    body["metadata"]["name"] = value::string(policy_);
    body["spec"] = value::parse(R"({"template":{"spec":{"benchmark":{"kind":"Fabric"}}}})");
    body["spec"]["attempts"] = value::number(p.spec.attempts);
    body["spec"]["retryDelaySeconds"] = value::number(p.spec.retryDelaySeconds);
    body["spec"]["timeoutSeconds"] = value::number(p.spec.timeoutSeconds);
    body["spec"]["unassigned"] = value::string(api::toString(p.spec.unassigned));
    body["spec"]["suspectNodes"] = value::string(api::toString(p.spec.suspectNodes));
    client_->create(policiesPath(), body);
  }

  void start() {
    AdmissionCheckControllerOptions checks;
    checks.informer.backoffMax = 1s;
    checks_ = std::make_unique<AdmissionCheckController>(*client_, checks);
    PreflightControllerOptions o;
    o.ns = ns_;
    o.informer.backoffMax = 1s;
    o.reconciler.onEvent = [this](const value&, bool warning, const std::string& reason,
                                  const std::string& message) {
      std::lock_guard<std::mutex> lock(mutex_);
      events_.push_back((warning ? "Warning " : "Normal ") + reason + ": " + message);
    };
    o.reconciler.onAnswered = [this](const PreflightAnswered& a) {
      std::lock_guard<std::mutex> lock(mutex_);
      answers_.push_back(a.state + "/" + a.outcome);
    };
    o.runtime.onReconciled = [this](const std::string& key, std::chrono::duration<double>,
                                    const kube::Result&, const std::string* error) {
      if (!error) return;
      std::lock_guard<std::mutex> lock(mutex_);
      errors_.push_back(key + ": " + *error);
    };
    gate_ = std::make_unique<PreflightController>(*client_, o);
    for (kube::Controller* c : {static_cast<kube::Controller*>(checks_.get()),
                                static_cast<kube::Controller*>(gate_.get())}) {
      c->startInformers();
      ASSERT_TRUE(c->waitForSync(30s));
      c->startWorkers();
    }
  }

  void stop() {
    if (gate_) gate_->stop();
    if (checks_) checks_->stop();
    gate_.reset();
    checks_.reset();
  }

  std::string activeStatus() {
    const value c = client_->get(checksPath() + "/" + check_);
    const value* status = kube::fieldOf(c, "status");
    const value* conditions = status != nullptr ? kube::fieldOf(*status, "conditions") : nullptr;
    if (conditions == nullptr || !conditions->is_array()) return "";
    for (const value& x : conditions->as_array()) {
      if (kube::stringField(x, "type") == "Active") {
        return kube::stringField(x, "status") + "/" + kube::stringField(x, "reason");
      }
    }
    return "";
  }

  std::string state(const std::string& workload) {
    return kube::stringField(kueue_->checkState(workload, check_), "state");
  }
  std::string message(const std::string& workload) {
    return kube::stringField(kueue_->checkState(workload, check_), "message");
  }

  std::vector<value> runs() {
    const value list = client_->get(runsPath());
    std::vector<value> out;
    for (const value& r : list.at("items").as_array()) out.push_back(r);
    return out;
  }
  std::vector<std::string> runNames() {
    std::vector<std::string> names;
    for (const value& r : runs()) names.push_back(kube::metadataField(r, "name"));
    return names;
  }

  // The DistBenchmark controller's part: the run Succeeded, its report
  // stored, status.fabric as fabricOutcome writes it for a fabric of the
  // run's nodes in which `slow` (an index, -1: none) is at a quarter speed.
  void finishRun(const std::string& run, int slow) {
    value object = client_->get(runsPath() + "/" + run);
    const value& nodes = object.at("spec").at("benchmark").at("fabric").at("nodes");
    report::FabricWorld world;
    world.nodes = report::fabricNodes(static_cast<int>(nodes.size()));
    world.seed = 11;
    if (slow >= 0) world.nodeFactor[slow] = 0.25;
    report::FabricMeasurements m = report::measureAllPairs(world);
    for (std::size_t i = 0; i < m.nodes.size(); ++i) m.nodes[i].node = nodes.at(i).as_string();
    report::Report r;
    r.kind = "Fabric";
    r.resultsJson = "{\"fabric\":" + report::fabricToJson(m) + "}";
    value status = value::object();
    status["phase"] = value::string("Succeeded");
    status["conditions"] = value::parse(
        R"([{"type":"ReportStored","status":"True","reason":"ReportStored","message":"stored",
             "lastTransitionTime":"2026-11-28T10:00:00Z"}])");
    status["fabric"] = fabricOutcome(r, 25).status;
    object["status"] = status;
    client_->replace(runsPath() + "/" + run + "/status", object);
  }

  std::string onlyRun() {
    std::vector<std::string> names;
    EXPECT_TRUE(eventually([&] { return (names = runNames()).size() == 1; }, 30s))
        << names.size() << " runs";
    return names.empty() ? "" : names.front();
  }

  bool nodeTainted(const std::string& node) {
    const value n = client_->get(kube::corePath("", "nodes", node));
    const value* spec = kube::fieldOf(n, "spec");
    const value* taints = spec != nullptr ? kube::fieldOf(*spec, "taints") : nullptr;
    if (taints == nullptr || !taints->is_array()) return false;
    for (const value& t : taints->as_array()) {
      if (kube::stringField(t, "key") == "distbench.io/suspect") return true;
    }
    return false;
  }

  // The answers counted once there are `n`: the gate counts an answer after
  // writing it and deleting its run, which is what the tests wait for.
  std::vector<std::string> answers(std::size_t n) {
    eventually([&] {
      std::lock_guard<std::mutex> lock(mutex_);
      return answers_.size() >= n;
    });
    std::lock_guard<std::mutex> lock(mutex_);
    return answers_;
  }

  std::unique_ptr<kubetest::KueueHarness> kueue_;
  std::unique_ptr<AdmissionCheckController> checks_;
  std::unique_ptr<PreflightController> gate_;
  std::string check_, policy_;
  std::vector<std::string> hosts_;
  std::mutex mutex_;
  std::vector<std::string> events_, answers_, errors_;
};

TEST_F(PreflightControllerTest, TheCheckIsActiveWhileItsPolicyCanBeUsed) {
  kueue_->createAdmissionCheck(check_, api::kPreflightControllerName, policy_);
  start();
  ASSERT_TRUE(eventually([&] { return activeStatus() == "False/PolicyNotFound"; }))
      << activeStatus();
  createPolicy();
  ASSERT_TRUE(eventually([&] { return activeStatus() == "True/Active"; })) << activeStatus();
  client_->remove(policiesPath() + "/" + policy_);
  EXPECT_TRUE(eventually([&] { return activeStatus() == "False/PolicyNotFound"; }))
      << activeStatus();
}

TEST_F(PreflightControllerTest, AnotherControllersCheckIsLeftAlone) {
  kueue_->createAdmissionCheck(check_, "kueue.x-k8s.io/provisioning-request", "");
  createPolicy();
  start();
  kueue_->createWorkload("train", 4, {check_});
  kueue_->reserveQuota("train", hosts_);
  std::this_thread::sleep_for(2s);  // nothing to wait for: nothing may happen
  EXPECT_EQ(activeStatus(), "");
  EXPECT_EQ(state("train"), "Pending");
  EXPECT_TRUE(runNames().empty());
}

TEST_F(PreflightControllerTest, AHealthyFabricIsReadyAndTheWorkloadAdmitted) {
  kueue_->createAdmissionCheck(check_, api::kPreflightControllerName, policy_);
  createPolicy();
  start();
  kueue_->createWorkload("train", 4, {check_});
  // Pending before its quota is reserved: nothing runs yet.
  std::this_thread::sleep_for(1s);
  EXPECT_TRUE(runNames().empty());
  kueue_->reserveQuota("train", hosts_);
  const std::string run = onlyRun();
  const value object = client_->get(runsPath() + "/" + run);
  EXPECT_EQ(object.at("spec").at("benchmark").at("fabric").at("nodes").serialize(),
            value::array({value::string(hosts_[0]), value::string(hosts_[1]),
                          value::string(hosts_[2]), value::string(hosts_[3])})
                .serialize());
  EXPECT_EQ(object.at("spec").at("topology").at("trainers").as_integer(), 4);
  const value& owner = object.at("metadata").at("ownerReferences").at(0);
  EXPECT_EQ(owner.at("kind").as_string(), "Workload");
  EXPECT_EQ(owner.at("uid").as_string(), kube::metadataField(kueue_->get("train"), "uid"));
  EXPECT_EQ(state("train"), "Pending") << "no answer before the run's";

  finishRun(run, -1);
  ASSERT_TRUE(eventually([&] { return state("train") == "Ready"; })) << message("train");
  EXPECT_NE(message("train").find("healthy: 4 nodes"), std::string::npos) << message("train");
  EXPECT_TRUE(eventually([&] { return runNames().empty(); })) << "the run is deleted";
  EXPECT_EQ(kueue_->step("train"), "Admitted");
  EXPECT_EQ(answers(1), std::vector<std::string>{"Ready/Healthy"});
  std::lock_guard<std::mutex> lock(mutex_);
  EXPECT_TRUE(errors_.empty()) << errors_.front();
}

TEST_F(PreflightControllerTest, ASlowNodeRetriesThenRejectsAndIsTainted) {
  kueue_->createAdmissionCheck(check_, api::kPreflightControllerName, policy_);
  createPolicy("  suspectNodes: Taint\n");
  start();
  kueue_->createWorkload("train", 4, {check_});
  kueue_->reserveQuota("train", hosts_);
  const std::string first = onlyRun();
  finishRun(first, 2);
  ASSERT_TRUE(eventually([&] { return state("train") == "Retry"; })) << message("train");
  const value retry = kueue_->checkState("train", check_);
  EXPECT_EQ(retry.at("requeueAfterSeconds").as_integer(), 30);
  EXPECT_NE(message("train").find(hosts_[2]), std::string::npos) << message("train");
  EXPECT_NE(message("train").find("attempt 1 of 2"), std::string::npos) << message("train");
  EXPECT_TRUE(eventually([&] { return nodeTainted(hosts_[2]); }));
  EXPECT_FALSE(nodeTainted(hosts_[0]));

  // Kueue evicts, resets the check (retryCount 1) and reserves again.
  EXPECT_EQ(kueue_->step("train"), "Evicted");
  kueue_->reserveQuota("train", hosts_);
  std::string second;
  ASSERT_TRUE(eventually([&] {
    const std::vector<std::string> names = runNames();
    return names.size() == 1 && (second = names.front()) != first;
  })) << "a second attempt's run";
  finishRun(second, 2);
  ASSERT_TRUE(eventually([&] { return state("train") == "Rejected"; })) << message("train");
  EXPECT_NE(message("train").find("no attempts left"), std::string::npos) << message("train");
  EXPECT_EQ(kueue_->step("train"), "Deactivated");
  EXPECT_TRUE(eventually([&] { return runNames().empty(); }));
  EXPECT_EQ(answers(2), (std::vector<std::string>{"Retry/Slow", "Rejected/Slow"}));
}

TEST_F(PreflightControllerTest, WithoutNodeNamesTheCheckSaysWhyAndRejects) {
  kueue_->createAdmissionCheck(check_, api::kPreflightControllerName, policy_);
  createPolicy();
  start();
  kueue_->createWorkload("train", 4, {check_});
  kueue_->reserveQuota("train", std::nullopt);
  ASSERT_TRUE(eventually([&] { return state("train") == "Rejected"; })) << message("train");
  EXPECT_NE(message("train").find("topology-aware scheduling is off"), std::string::npos)
      << message("train");
  EXPECT_TRUE(runNames().empty());
}

TEST_F(PreflightControllerTest, ARunThatNeverEndsIsAFailedCheckAtItsTimeout) {
  kueue_->createAdmissionCheck(check_, api::kPreflightControllerName, policy_);
  createPolicy("  timeoutSeconds: 2\n");
  start();
  kueue_->createWorkload("train", 4, {check_});
  kueue_->reserveQuota("train", hosts_);
  onlyRun();  // and nothing plays its pods: it never finishes
  ASSERT_TRUE(eventually([&] { return state("train") == "Retry"; }, 30s)) << message("train");
  EXPECT_NE(message("train").find("did not finish within 2 s"), std::string::npos)
      << message("train");
  EXPECT_TRUE(eventually([&] { return runNames().empty(); })) << "the run is deleted";
  EXPECT_EQ(answers(1), std::vector<std::string>{"Retry/TimedOut"});
}

TEST_F(PreflightControllerTest, AWorkloadEvictedMidCheckGetsNoAnswerAndLosesItsRun) {
  kueue_->createAdmissionCheck(check_, api::kPreflightControllerName, policy_);
  kueue_->createAdmissionCheck(check_ + "-other", "example.com/other", "");
  createPolicy();
  start();
  kueue_->createWorkload("train", 4, {check_, check_ + "-other"});
  kueue_->reserveQuota("train", hosts_);
  const std::string run = onlyRun();
  // Another check fails: Kueue evicts the Workload while ours is running.
  {
    value w = kueue_->get("train");
    for (value& c : w["status"]["admissionChecks"].as_array()) {
      if (kube::stringField(c, "name") == check_ + "-other") {
        c["state"] = value::string("Retry");
        c["message"] = value::string("the other check failed");
      }
    }
    client_->replace(kueue_->path("train") + "/status", w);
  }
  EXPECT_EQ(kueue_->step("train"), "Evicted");
  EXPECT_TRUE(eventually([&] { return runNames().empty(); })) << "the run " << run << " is deleted";
  std::this_thread::sleep_for(1s);
  EXPECT_EQ(state("train"), "Pending") << "no answer on an evicted Workload";
  removeQuietly(checksPath() + "/" + check_ + "-other");
  std::lock_guard<std::mutex> lock(mutex_);
  EXPECT_TRUE(answers_.empty());
}

TEST_F(PreflightControllerTest, AWorkloadDeletedMidCheckLeavesNothing) {
  kueue_->createAdmissionCheck(check_, api::kPreflightControllerName, policy_);
  createPolicy();
  start();
  kueue_->createWorkload("train", 4, {check_});
  kueue_->reserveQuota("train", hosts_);
  onlyRun();
  client_->remove(kueue_->path("train"));
  // The gate deletes the run of a Workload that is gone itself, whether or
  // not a garbage collector runs (the test cluster starts one only on
  // request).
  EXPECT_TRUE(eventually([&] { return runNames().empty(); })) << "the run is deleted";
  std::lock_guard<std::mutex> lock(mutex_);
  EXPECT_TRUE(answers_.empty());
}

TEST_F(PreflightControllerTest, ARestartedGateFindsItsRunAndAnswersOnce) {
  kueue_->createAdmissionCheck(check_, api::kPreflightControllerName, policy_);
  createPolicy();
  start();
  kueue_->createWorkload("train", 4, {check_});
  kueue_->reserveQuota("train", hosts_);
  const std::string run = onlyRun();
  const std::string uid = kube::metadataField(client_->get(runsPath() + "/" + run), "uid");
  stop();
  start();
  std::this_thread::sleep_for(1s);
  ASSERT_EQ(runNames(), std::vector<std::string>{run});
  EXPECT_EQ(kube::metadataField(client_->get(runsPath() + "/" + run), "uid"), uid)
      << "the same run, not a second";
  finishRun(run, -1);
  ASSERT_TRUE(eventually([&] { return state("train") == "Ready"; })) << message("train");
}

}  // namespace
}  // namespace distbench::op
