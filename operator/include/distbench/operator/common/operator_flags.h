// distbench-operator's command line. Every flag has a default that works in
// a cluster (in-cluster config, all namespaces, no election), so the chart
// only sets what it changes. Bad input is an error naming the flag.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "distbench/operator/common/worker_images.h"

namespace distbench::op {

struct OperatorFlags {
  std::string kubeconfig;  // empty: $KUBECONFIG, then in-cluster
  std::string context;
  std::string ns;  // empty: every namespace
  int workers = 4;
  std::string httpAddress = "0.0.0.0:8080";  // /metrics, /healthz, /readyz
  bool leaderElect = false;
  std::string leaderElectionNamespace;  // empty: $POD_NAMESPACE, else "default"
  std::string leaderElectionId = "distbench-operator";
  double leaseDurationSeconds = 15;
  double renewDeadlineSeconds = 10;
  double retryPeriodSeconds = 2;
  std::string logFormat = "json";  // json | text
  std::string logLevel = "info";   // debug | info | warn | error
  // Seconds a shutdown waits for reconciles in flight.
  double shutdownTimeoutSeconds = 10;
  // Seconds the API server may refuse a benchmark's pods before it fails
  // (CreateFailed).
  double createFailureTimeoutSeconds = 60;
  // Seconds after Succeeded the operator goes on asking for the master's log
  // (the report) while its kubelet does not answer.
  double reportFetchTimeoutSeconds = 60;
  // Seconds between reads of a Running benchmark's trainer 0 log for
  // status.progress; 0: progress is not followed.
  double progressIntervalSeconds = 10;
  // JSON list of NetworkPolicyPeers that may reach the gang pods' metrics
  // port; "[]": any source.
  std::string workerMetricsFrom = "[]";
  // The worker image of benchmarks that name none (spec.runtime.image and
  // the role's template empty), for device cpu and device cuda.
  std::string workerImage = defaultCpuWorkerImage();
  std::string cudaWorkerImage = defaultCudaWorkerImage();
  // Let benchmarks relax their pods below Pod Security "restricted"
  // (runAsUser 0, Unconfined seccomp, added capabilities...); false: refused
  // as InvalidSpec, so one tenant cannot get privileges on a shared node.
  bool allowPrivilegedOverrides = false;
  // What a Fabric run's slow node gets (suspect_node_marks.h): none | label
  // | taint. Anything but none needs the chart's one extra RBAC rule
  // (fabric.suspectNodes), which patches nodes.
  std::string suspectNodes = "none";
  // Run the preflight gate: the Kueue AdmissionCheck controller of
  // distbench.io/preflight (docs/preflight.md). Off unless asked: it needs
  // Kueue's CRDs and RBAC on Workloads, AdmissionChecks and nodes.
  bool preflight = false;
  bool help = false;
  bool version = false;
};

struct FlagError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Accepts "--flag value" and "--flag=value"; --leader-elect alone is true.
// Throws FlagError naming the flag.
OperatorFlags parseOperatorFlags(const std::vector<std::string>& args);
std::string operatorUsage();

}  // namespace distbench::op
