// Objects the operator's tests write to the API server in others' place:
// the pod status the kubelet would report (no kubelet runs in these tests),
// and the smallest DistBenchmark a user would submit.
#pragma once

#include <cpprest/json.h>

#include <string>

namespace distbench::kubetest {

// The kubelet's part, which tests play through the API: a pod's status
// subresource patch with its phase, Ready condition and the worker
// container's state (running, or terminated with `exitCode` and `message`).
inline web::json::value podStatusPatch(const std::string& phase, int exitCode = 0,
                                       const std::string& message = "") {
  using web::json::value;
  value status = value::object();
  status["phase"] = value::string(phase);
  value ready = value::object();
  ready["type"] = value::string("Ready");
  ready["status"] = value::string(phase == "Running" ? "True" : "False");
  status["conditions"] = value::array({ready});
  value cs = value::object();
  cs["name"] = value::string("worker");
  cs["image"] = value::string("distbench/worker:latest");
  cs["imageID"] = value::string("");
  cs["restartCount"] = value::number(0);
  cs["ready"] = value::boolean(phase == "Running");
  if (phase == "Running") {
    cs["state"]["running"]["startedAt"] = value::string("2026-11-22T00:00:00Z");
  } else if (phase == "Succeeded" || phase == "Failed") {
    value& t = cs["state"]["terminated"];
    t["exitCode"] = value::number(exitCode);
    t["reason"] = value::string(exitCode == 0 ? "Completed" : "Error");
    if (!message.empty()) t["message"] = value::string(message);
    t["startedAt"] = value::string("2026-11-22T00:00:00Z");
    t["finishedAt"] = value::string("2026-11-22T00:00:01Z");
  }
  status["containerStatuses"] = value::array({cs});
  // A started pod has an address (the operator points the master Service's
  // Endpoints at it); one for all: nothing here routes to it.
  if (phase != "Pending") status["podIP"] = value::string("198.18.0.2");
  value patch = value::object();
  patch["status"] = status;
  return patch;
}

// The smallest HybridDDPRPC benchmark the operator tests run: 1 parameter
// server and 2 trainers, everything else defaulted.
inline web::json::value smallBenchmark(const std::string& name) {
  using web::json::value;
  value b = value::object();
  b["apiVersion"] = value::string("distbench.io/v1alpha1");
  b["kind"] = value::string("DistBenchmark");
  b["metadata"]["name"] = value::string(name);
  b["spec"]["topology"]["trainers"] = value::number(2);
  b["spec"]["topology"]["parameterServers"] = value::number(1);
  return b;
}

}  // namespace distbench::kubetest
