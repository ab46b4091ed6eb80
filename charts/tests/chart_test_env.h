// What the chart tests share: where helm and kubectl are, running them, and
// the one API server of the binary (started on first use, by
// chart_test_main.cpp, only for the ChartCluster* tests).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "distbench/testing/kube/kube_test_cluster.h"
#include "distbench/testing/kube/kube_tools.h"

namespace distbench::charttest {

// The helm and kubectl the tests run (testing/kube/kube_tools.h).
using Tools = kubetest::KubeTools;
inline const Tools& tools() { return kubetest::kubeTools(); }
using kubetest::inCi;

// The etcd + kube-apiserver of this test binary, started on the first call
// (on the main thread: the fixture's children die with the thread that
// started them). Null when it failed to start; clusterError() says why.
kubetest::KubeTestCluster* chartCluster();
const std::string& clusterError();

}  // namespace distbench::charttest

// Skips (or, in CI, fails) the current test when helm (and, with
// needKubectl, kubectl) is missing.
#define DISTBENCH_REQUIRE_TOOLS(needKubectl)                                                   \
  do {                                                                                         \
    const auto& t_ = ::distbench::charttest::tools();                                          \
    std::string missing_;                                                                      \
    if (t_.helm.empty()) missing_ += "helm ";                                                  \
    if ((needKubectl) && t_.kubectl.empty()) missing_ += "kubectl ";                           \
    if (!missing_.empty()) {                                                                   \
      const std::string why_ =                                                                 \
          missing_ + "not found (looked in " + t_.searched + "); run scripts/install-helm.sh"; \
      if (::distbench::charttest::inCi()) GTEST_FAIL() << why_ << " (CI=true: not skipping)";  \
      GTEST_SKIP() << why_;                                                                    \
    }                                                                                          \
  } while (0)
