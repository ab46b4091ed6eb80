// Small helpers the tests against the shared API server have in common:
// polling with a deadline, and a namespace of a test's own in which pods can
// be created. What only the operator's tests write (a DistBenchmark, the
// kubelet's pod status) is operator/tests/benchmark_test_objects.h.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "distbench/kube/kube_client.h"
#include "distbench/process/eventually.h"

namespace distbench::kubetest {

// Polls instead of sleeping a guessed time (process/src/eventually.h).
using process::eventually;

// Creates namespace `name` (existing is fine) and, with `forPods`, its
// "default" ServiceAccount, which pods need and which no
// kube-controller-manager creates in these tests.
inline void ensureNamespace(op::KubeClient& client, const std::string& name, bool forPods = false) {
  auto create = [&client](const std::string& path, const char* kind, const std::string& objectName) {
    web::json::value object = web::json::value::object();
    object["apiVersion"] = web::json::value::string("v1");
    object["kind"] = web::json::value::string(kind);
    object["metadata"]["name"] = web::json::value::string(objectName);
    try {
      client.create(path, object);
    } catch (const op::KubeApiError& e) {
      if (!e.alreadyExists()) throw;
    }
  };
  create(op::corePath("", "namespaces"), "Namespace", name);
  if (forPods) create(op::corePath(name, "serviceaccounts"), "ServiceAccount", "default");
}

}  // namespace distbench::kubetest
