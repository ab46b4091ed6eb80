// Small helpers the tests against the shared API server have in common:
// polling with a deadline, and a namespace of a test's own in which pods can
// be created. What only the operator's tests write (a DistBenchmark, the
// kubelet's pod status) is operator/tests/support/benchmark_test_objects.h.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "distbench/kube/kube_client.h"
#include "distbench/process/eventually.h"
#include "distbench/testing/kube/operator_process.h"

namespace distbench::kubetest {

// Polls instead of sleeping a guessed time (process/include/distbench/process/eventually.h).
using process::eventually;

// Creates namespace `name` (existing is fine) and, with `forPods`, its
// "default" ServiceAccount, which pods need and which no
// kube-controller-manager creates in these tests.
inline void ensureNamespace(kube::KubeClient& client, const std::string& name,
                            bool forPods = false) {
  auto create = [&client](const std::string& path, const char* kind, const std::string& objectName) {
    web::json::value object = web::json::value::object();
    object["apiVersion"] = web::json::value::string("v1");
    object["kind"] = web::json::value::string(kind);
    object["metadata"]["name"] = web::json::value::string(objectName);
    try {
      client.create(path, object);
    } catch (const kube::KubeApiError& e) {
      if (!e.alreadyExists()) throw;
    }
  };
  create(kube::corePath("", "namespaces"), "Namespace", name);
  if (forPods) create(kube::corePath(name, "serviceaccounts"), "ServiceAccount", "default");
}

// A ValidatingWebhookConfiguration `name` whose one webhook is down: it
// points at a loopback port where nothing listens, with failurePolicy Fail,
// so every `operation` on `resource` (API group `group`, "" for the core
// group, at `version`) gets 500 "failed calling webhook", for objects
// labelled `label`=`labelValue` only, so no other test's.
inline web::json::value deadWebhookConfiguration(const std::string& name, const std::string& group,
                                                 const std::string& version,
                                                 const std::string& resource,
                                                 const std::string& operation,
                                                 const std::string& label,
                                                 const std::string& labelValue) {
  using web::json::value;
  value hook = value::object();
  hook["name"] = value::string("dead.distbench.io");
  hook["clientConfig"]["url"] =
      value::string("https://127.0.0.1:" + std::to_string(freePort()) + "/validate");
  value rule = value::object();
  rule["operations"] = value::array({value::string(operation)});
  rule["apiGroups"] = value::array({value::string(group)});
  rule["apiVersions"] = value::array({value::string(version)});
  rule["resources"] = value::array({value::string(resource)});
  hook["rules"] = value::array({rule});
  hook["failurePolicy"] = value::string("Fail");
  hook["sideEffects"] = value::string("None");
  hook["admissionReviewVersions"] = value::array({value::string("v1")});
  hook["timeoutSeconds"] = value::number(2);
  hook["objectSelector"]["matchLabels"][label] = value::string(labelValue);
  value config = value::object();
  config["apiVersion"] = value::string("admissionregistration.k8s.io/v1");
  config["kind"] = value::string("ValidatingWebhookConfiguration");
  config["metadata"]["name"] = value::string(name);
  config["webhooks"] = value::array({hook});
  return config;
}

}  // namespace distbench::kubetest
