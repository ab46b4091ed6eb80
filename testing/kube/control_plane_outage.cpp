#include "distbench/testing/kube/control_plane_outage.h"

#include <cstdio>
#include <exception>
#include <thread>

namespace distbench::kubetest {

ControlPlaneOutage::ControlPlaneOutage(KubeTestCluster& cluster)
    : cluster_(cluster), began_(std::chrono::steady_clock::now()) {
  try {
    cluster_.stopApiServer();
    cluster_.stopEtcd();
  } catch (...) {
    // The destructor does not run for a constructor that throws.
    endAfter();
    throw;
  }
}

ControlPlaneOutage::~ControlPlaneOutage() {
  if (over_) return;
  try {
    endAfter();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "control plane outage: could not start the control plane again: %s\n",
                 e.what());
  }
}

void ControlPlaneOutage::endAfter(std::chrono::steady_clock::duration length) {
  std::this_thread::sleep_until(began_ + length);
  ended_ = std::chrono::steady_clock::now();
  cluster_.startEtcd();
  cluster_.startApiServer();
  over_ = true;
}

std::chrono::steady_clock::duration ControlPlaneOutage::elapsed() const {
  return (over_ ? ended_ : std::chrono::steady_clock::now()) - began_;
}

}  // namespace distbench::kubetest
