#include <chrono>
#include <cstdio>
#include <memory>

#include "chart_test_env.h"

namespace distbench::charttest {
namespace {

std::unique_ptr<kubetest::KubeTestCluster> cluster;
std::string error;
bool tried = false;

}  // namespace

kubetest::KubeTestCluster* chartCluster() {
  if (!tried) {
    tried = true;
    auto start = std::chrono::steady_clock::now();
    try {
      cluster = std::make_unique<kubetest::KubeTestCluster>();
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::printf("[ cluster  ] etcd + kube-apiserver at %s ready in %.1f s\n",
                  cluster->url().c_str(), s);
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  return cluster.get();
}

const std::string& clusterError() { return error; }

}  // namespace distbench::charttest

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const auto& t = distbench::charttest::tools();
  std::printf("[ tools    ] helm: %s; kubectl: %s\n", t.helm.empty() ? "(none)" : t.helm.c_str(),
              t.kubectl.empty() ? "(none)" : t.kubectl.c_str());
  int rc = RUN_ALL_TESTS();
  distbench::charttest::cluster.reset();  // stop the control plane from this (main) thread
  return rc;
}
