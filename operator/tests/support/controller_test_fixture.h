// The controller-test fixture: a Controller on the shared real API server,
// in a namespace of the test's own, with the test playing the kubelet's part
// by writing pod status through the API (as envtest-based operators are
// tested).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "benchmark_namespace_test.h"
#include "distbench/operator/benchmarks/benchmark_controller.h"
#include "distbench/operator/benchmarks/desired_objects.h"
#include "distbench/testing/kube/audit_log.h"

namespace distbench::op {
namespace {

using web::json::value;
using namespace std::chrono_literals;

using kubetest::eventually;

std::string str(const value& v, const std::vector<std::string>& path) {
  const value* at = &v;
  for (const std::string& p : path) {
    if (!at->is_object() || !at->has_field(p)) return "";
    at = &at->at(p);
  }
  if (at->is_string()) return at->as_string();
  if (at->is_number()) return std::to_string(at->as_number().to_int64());
  return "";
}

const value* condition(const value& object, const std::string& type) {
  if (!object.has_field("status") || !object.at("status").has_field("conditions")) return nullptr;
  for (const value& c : object.at("status").at("conditions").as_array())
    if (c.at("type").as_string() == type) return &c;
  return nullptr;
}

[[maybe_unused]] bool conditionTrue(const value& object, const std::string& type) {
  const value* c = condition(object, type);
  return c != nullptr && c->at("status").as_string() == "True";
}

class ControllerTest : public kubetest::BenchmarkNamespaceTest {
 protected:
  ControllerTest() : BenchmarkNamespaceTest("ctl") {}

  void TearDown() override {
    if (controller_) controller_->stop();
  }

  // `client`: whose credentials the controller uses (default: the admin's).
  void startController(std::chrono::seconds createFailureTimeout = 60s,
                       kube::KubeClient* client = nullptr) {
    BenchmarkControllerOptions o;
    o.createFailureTimeout = createFailureTimeout;
    o.reportFetchTimeout = reportFetchTimeout_;
    o.progressInterval = progressInterval_;
    o.cluster.allowPrivilegedOverrides = allowPrivilegedOverrides_;
    o.suspectNodes = suspectNodes_;
    o.ns = ns_;
    o.runtime.workers = 2;
    o.informer.backoffMax = 1s;
    o.onEvent = [this](const value&, bool warning, const std::string& reason,
                       const std::string& message) {
      {
        std::lock_guard<std::mutex> lock(eventsMutex_);
        events_.push_back((warning ? "Warning " : "Normal ") + reason + ": " + message);
      }
      if (onEvent_) onEvent_(reason);
    };
    o.runtime.onReconciled = [this](const std::string& key, std::chrono::duration<double>,
                                    const kube::Result&, const std::string* error) {
      if (error) {
        std::fprintf(stderr, "reconcile %s: %s\n", key.c_str(), error->c_str());
        return;
      }
      std::lock_guard<std::mutex> lock(eventsMutex_);
      ++reconciled_[key];
    };
    {
      std::lock_guard<std::mutex> lock(eventsMutex_);
      reconciled_.clear();
    }
    controller_ = std::make_unique<BenchmarkController>(client ? *client : *client_, o);
    controller_->startInformers();
    ASSERT_TRUE(controller_->waitForSync(30s));
    controller_->startWorkers();
  }

  std::string benchmarksPath(const std::string& name = "") const {
    return kube::groupPath(kGroup, kVersion, ns_, kPlural, name);
  }

  // A hybrid benchmark with 1 parameter server and 2 trainers; `spec`
  // fields are merged over that.
  value createBenchmark(const std::string& name, const value& extraSpec = value::object()) {
    value b = kubetest::smallBenchmark(name);
    for (const auto& [k, v] : extraSpec.as_object()) {
      if (v.is_object() && b["spec"].has_field(k)) {
        for (const auto& [k2, v2] : v.as_object()) b["spec"][k][k2] = v2;
      } else {
        b["spec"][k] = v;
      }
    }
    return client_->create(benchmarksPath(), b);
  }

  value getBenchmark(const std::string& name) { return client_->get(benchmarksPath(name)); }

  bool benchmarkWhere(const std::string& name, const std::function<bool(const value&)>& test,
                      std::chrono::milliseconds deadline = 20s) {
    return eventually(
        [&] {
          try {
            last_ = getBenchmark(name);
            return test(last_);
          } catch (const kube::KubeApiError&) {
            return false;
          }
        },
        deadline);
  }

  std::vector<value> podsOf(const std::string& name) {
    value list = client_->get(kube::corePath(ns_, "pods") + "?labelSelector=" +
                              kube::queryEscape(std::string(kLabelBenchmark) + "=" + name));
    std::vector<value> out;
    for (const value& p : list.at("items").as_array())
      if (!p.at("metadata").has_field("deletionTimestamp")) out.push_back(p);
    return out;
  }

  // The kubelet's part: the pod's phase and its container's state.
  void setPod(const std::string& pod, const std::string& phase, int exitCode = 0,
              const std::string& message = "") {
    client_->mergePatch(kube::corePath(ns_, "pods", pod) + "/status",
                        kubetest::podStatusPatch(phase, exitCode, message));
  }

  bool podsAre(const std::string& name, size_t n, const std::string& gang = "") {
    auto pods = podsOf(name);
    if (pods.size() != n) return false;
    for (const value& p : pods)
      if (!gang.empty() && str(p, {"metadata", "labels", kLabelGang}) != gang) return false;
    return true;
  }

  void allRunning(const std::string& name) {
    for (const char* pod : {"-master-0", "-ps-0", "-trainer-0", "-trainer-1"})
      setPod(name + pod, "Running");
  }

  // The deletes of `resource` ("pods", "services", "distbenchmarks") named
  // `name` in this namespace that the API server answered, as its audit log
  // has them: what the request carried, not what the client meant to send.
  std::vector<kubetest::AuditRecord> deletesOf(const std::string& resource,
                                               const std::string& name) {
    std::vector<kubetest::AuditRecord> out;
    for (kubetest::AuditRecord& r : kubetest::readAuditLog(cluster_->auditLogPath())) {
      if (r.verb == "delete" && r.stage == "ResponseComplete" && r.ns == ns_ &&
          r.resource == resource && r.name == name)
        out.push_back(std::move(r));
    }
    return out;
  }

  bool sawEvent(const std::string& text) {
    std::lock_guard<std::mutex> lock(eventsMutex_);
    for (const std::string& e : events_)
      if (e.find(text) != std::string::npos) return true;
    return false;
  }

  // Reconciles of benchmark `name` that ended without an error, by the
  // controller last started.
  int reconciledOk(const std::string& name) {
    std::lock_guard<std::mutex> lock(eventsMutex_);
    auto it = reconciled_.find(ns_ + "/" + name);
    return it == reconciled_.end() ? 0 : it->second;
  }

  std::unique_ptr<BenchmarkController> controller_;
  std::chrono::seconds reportFetchTimeout_{60};  // set before startController
  std::chrono::seconds progressInterval_{10};    // --progress-interval, likewise
  bool allowPrivilegedOverrides_ = false;        // --allow-privileged-overrides, likewise
  SuspectNodeAction suspectNodes_ = SuspectNodeAction::None;  // --suspect-nodes, likewise
  // Called with each Event's reason, on the reconciling thread, right after
  // the status write that carried it: a test's way into the middle of a
  // reconcile. Set before startController.
  std::function<void(const std::string& reason)> onEvent_;
  value last_;
  std::mutex eventsMutex_;
  std::vector<std::string> events_;
  std::map<std::string, int> reconciled_;  // by key; under eventsMutex_
};

}  // namespace
}  // namespace distbench::op
