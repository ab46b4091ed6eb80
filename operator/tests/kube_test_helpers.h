// Small helpers the tests against the shared API server have in common:
// polling with a deadline, and a namespace of a test's own in which pods can
// be created.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "kube_client.h"

namespace distbench::kubetest {

// Polls instead of sleeping a guessed time: fast when things go well, and the
// deadline is generous for a loaded 2-core machine.
inline bool eventually(const std::function<bool()>& condition,
                       std::chrono::milliseconds deadline = std::chrono::seconds(30)) {
  const auto end = std::chrono::steady_clock::now() + deadline;
  while (std::chrono::steady_clock::now() < end) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return condition();
}

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
