// The preflight gate's test fixture: the shared API server with Kueue
// v0.15.8's CRDs and the policy CRD, a KueueHarness playing Kueue's part,
// four Node objects, and the gate's two controllers started in-process. The
// DistBenchmark controller's part is played by finishRun, which writes a
// check run's status as that controller writes it (fabricOutcome of a
// simulated fabric report).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "benchmark_namespace_test.h"
#include "distbench/api/preflight_policy.h"
#include "distbench/kube/json_fields.h"
#include "distbench/operator/benchmarks/fabric_suspects.h"
#include "distbench/operator/common/crd_names.h"
#include "distbench/operator/preflight/preflight_controller.h"
#include "distbench/report/fabric.h"
#include "distbench/report/fabric_simulate.h"
#include "kueue_harness.h"

namespace distbench::op {

// The tests that include it use these names unqualified.
using namespace std::chrono_literals;
using kubetest::eventually;
using web::json::value;

class PreflightGateTest : public kubetest::BenchmarkNamespaceTest {
 protected:
  PreflightGateTest() : BenchmarkNamespaceTest("gate") {}

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
    checks_ = std::make_unique<AdmissionCheckController>(gateClient(), checks);
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
    gate_ = std::make_unique<PreflightController>(gateClient(), o);
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

  // The client the gate's controllers use: the admin's, unless a test gave
  // them one of their own (a user bound to the chart's rules).
  kube::KubeClient& gateClient() { return gateClient_ ? *gateClient_ : *client_; }

  std::unique_ptr<kube::KubeClient> gateClient_;
  std::unique_ptr<kubetest::KueueHarness> kueue_;
  std::unique_ptr<AdmissionCheckController> checks_;
  std::unique_ptr<PreflightController> gate_;
  std::string check_, policy_;
  std::vector<std::string> hosts_;
  std::mutex mutex_;
  std::vector<std::string> events_, answers_, errors_;
};

}  // namespace distbench::op
