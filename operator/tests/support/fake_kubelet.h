// The kubelet's part of a pod's log for tests against the real API server,
// which has no kubelet: fake_kubelet_logs.py on a free port, a Node of the
// test's own whose kubelet endpoint it is, and the pods bound to that Node,
// so that GET pods/<pod>/log (which the API server proxies to the pod's
// kubelet) answers what the test wrote. The operator reads a Succeeded
// run's report that way.
#pragma once

#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "distbench/api/object_names.h"
#include "distbench/kube/kube_client.h"
#include "distbench/report/report_log.h"
#include "distbench/testing/kube/kube_test_cluster.h"
#include "distbench/testing/kube/kube_test_helpers.h"
#include "distbench/testing/kube/operator_process.h"

#ifndef DISTBENCH_FAKE_KUBELET
#error "DISTBENCH_FAKE_KUBELET must name fake_kubelet_logs.py"
#endif

namespace distbench::kubetest {

class FakeKubelet {
 public:
  // Starts the kubelet (its logs under `dir`) and creates Node `node`
  // pointing at it. Throws std::runtime_error when it does not listen.
  FakeKubelet(kube::KubeClient& client, const KubeTestCluster& cluster, const std::string& dir,
              std::string node)
      : client_(client), node_(std::move(node)), logs_(dir + "/kubelet-logs") {
    const int port = freePort();
    process_ = std::make_unique<OperatorProcess>(
        "/usr/bin/python3",
        std::vector<std::string>{DISTBENCH_FAKE_KUBELET, "--port", std::to_string(port), "--cert",
                                 cluster.servingCertFile(), "--key", cluster.servingKeyFile(),
                                 "--logs", logs_},
        std::vector<std::string>{}, dir + "/kubelet.log");
    if (!eventually([&] { return processLog().find("listening on") != std::string::npos; }))
      throw std::runtime_error("fake kubelet did not listen: " + processLog());
    createNode(port);
  }

  // Deletes the Node (the `client` given must still be there).
  ~FakeKubelet() {
    stopServing();
    try {
      client_.remove("/api/v1/nodes/" + node_);
    } catch (const std::exception&) {
    }
  }
  FakeKubelet(const FakeKubelet&) = delete;
  FakeKubelet& operator=(const FakeKubelet&) = delete;

  // The kubelet goes away; its Node stays, so that reading a log waits for
  // a kubelet that does not answer.
  void stopServing() { process_.reset(); }

  const std::string& node() const { return node_; }
  // LOGS of fake_kubelet_logs.py: <ns>/<pod>/<container>.log under it.
  const std::string& logs() const { return logs_; }
  // What the kubelet process printed (requests served, bytes sent).
  std::string processLog() const { return process_ ? process_->log() : ""; }

  // Pod `pod` scheduled on this Node, as the scheduler would bind it.
  void bind(const std::string& ns, const std::string& pod) {
    web::json::value binding = web::json::value::object();
    binding["apiVersion"] = web::json::value::string("v1");
    binding["kind"] = web::json::value::string("Binding");
    binding["metadata"]["name"] = web::json::value::string(pod);
    binding["target"]["kind"] = web::json::value::string("Node");
    binding["target"]["name"] = web::json::value::string(node_);
    client_.create(kube::corePath(ns, "pods", pod) + "/binding", binding);
  }

  // What benchmark `name`'s master container printed.
  void writeMasterLog(const std::string& ns, const std::string& name, const std::string& text) {
    writeLog(ns, api::podName(name, api::Role::Master, 0), text);
  }

  // What pod `pod`'s worker container printed (so far: a later call
  // replaces it, as a log that grew).
  void writeLog(const std::string& ns, const std::string& pod, const std::string& text) {
    for (const std::string& d : {logs_, logs_ + "/" + ns, logs_ + "/" + ns + "/" + pod})
      ::mkdir(d.c_str(), 0755);
    // Whole or not at all for a reader: written aside, then renamed.
    const std::string path = logs_ + "/" + ns + "/" + pod + "/worker.log";
    std::ofstream(path + ".new") << text;
    std::rename((path + ".new").c_str(), path.c_str());
  }

  // A master's log: a few lines, then the report frame of `json`.
  static std::string logWithReport(const std::string& json) {
    return "master: joined 4 ranks\nmaster: result summary written\n" +
           report::reportLogLines(json) + "master: run complete\n";
  }

 private:
  // A Node whose kubelet endpoint is `port` on 127.0.0.1.
  void createNode(int port) {
    using web::json::value;
    value node = value::object();
    node["apiVersion"] = value::string("v1");
    node["kind"] = value::string("Node");
    node["metadata"]["name"] = value::string(node_);
    client_.create("/api/v1/nodes", node);
    value status = value::object();
    value address = value::object();
    address["type"] = value::string("InternalIP");
    address["address"] = value::string("127.0.0.1");
    status["status"]["addresses"] = value::array({address});
    status["status"]["daemonEndpoints"]["kubeletEndpoint"]["Port"] = value::number(port);
    client_.mergePatch("/api/v1/nodes/" + node_ + "/status", status);
  }

  kube::KubeClient& client_;
  const std::string node_;
  const std::string logs_;
  std::unique_ptr<OperatorProcess> process_;
};

}  // namespace distbench::kubetest
