// A fixture for tests that run DistBenchmarks on the shared API server: the
// CRD installed, an admin kubeconfig in a private directory, a client, and a
// namespace of the test's own (named after the test) in which pods can be
// created.
#pragma once

#include <cctype>
#include <memory>
#include <string>

#include "benchmark_test_objects.h"
#include "crd_install.h"
#include "distbench/kube/kube_client.h"
#include "distbench/kube/kube_config.h"
#include "distbench/process/temp_dir.h"
#include "distbench/testing/kube/kube_test_env.h"
#include "distbench/testing/kube/kube_test_helpers.h"

namespace distbench::kubetest {

class BenchmarkNamespaceTest : public KubeTest {
 protected:
  // `prefix` starts the namespace's name: "<prefix>-<test name, lowercase>".
  explicit BenchmarkNamespaceTest(std::string prefix) : prefix_(std::move(prefix)) {}

  void SetUp() override {
    KubeTest::SetUp();
    if (!cluster_) return;
    establishedCrd();
    dir_ = std::make_unique<process::TempDir>(prefix_ + "-test-");
    kubeconfig_ = dir_->path() + "/kubeconfig";
    cluster_->writeKubeconfig(kubeconfig_);
    config_ = kube::loadKubeconfig(kubeconfig_);
    client_ = std::make_unique<kube::KubeClient>(config_);
    std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    for (char& c : test) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    ns_ = (prefix_ + "-" + test).substr(0, 63);
    ensureNamespace(*client_, ns_, true);
  }

  const std::string prefix_;
  std::unique_ptr<process::TempDir> dir_;
  std::string kubeconfig_;
  kube::KubeConfig config_;
  std::unique_ptr<kube::KubeClient> client_;
  std::string ns_;
};

}  // namespace distbench::kubetest
