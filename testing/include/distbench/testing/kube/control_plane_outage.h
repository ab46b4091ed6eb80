// An outage of the test cluster's whole control plane (kube-apiserver, then
// etcd, stopped; their data kept), for tests of what a client rides out: a
// Lease that cannot be renewed, watches that break, requests refused. The
// cluster is shared by every test of a binary, so the outage ends when the
// object goes, whatever the test did in between.
#pragma once

#include <chrono>

#include "distbench/testing/kube/kube_test_cluster.h"

namespace distbench::kubetest {

class ControlPlaneOutage {
 public:
  // Stops kube-apiserver, then etcd. Call from the thread that started the
  // cluster (kube_test_cluster.h). Throws KubeTestClusterError.
  explicit ControlPlaneOutage(KubeTestCluster& cluster);
  // end(), unless it ran; a failure is printed, not thrown.
  ~ControlPlaneOutage();
  ControlPlaneOutage(const ControlPlaneOutage&) = delete;
  ControlPlaneOutage& operator=(const ControlPlaneOutage&) = delete;

  // Starts etcd, then kube-apiserver, once `length` has passed since the
  // outage began (at once when it has); returns when /readyz answers 200.
  // A test picks the length its behaviour depends on: the time a Lease or a
  // retry backoff needs to run out, not more. Throws KubeTestClusterError.
  void endAfter(std::chrono::steady_clock::duration length = {});
  // Since the outage began (to its end, once ended).
  std::chrono::steady_clock::duration elapsed() const;

 private:
  KubeTestCluster& cluster_;
  std::chrono::steady_clock::time_point began_;
  std::chrono::steady_clock::time_point ended_{};
  bool over_ = false;
};

}  // namespace distbench::kubetest
