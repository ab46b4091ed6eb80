// ControllerTest with the kubelet's part of pod logs (fake_kubelet.h), for
// the tests of what the operator reads of the ranks' logs: the report, the
// progress, the failed ranks' last lines.
#pragma once

#include <memory>
#include <string>

#include "controller_test_fixture.h"
#include "fake_kubelet.h"

namespace distbench::op {
namespace {

class KubeletControllerTest : public ControllerTest {
 protected:
  void TearDown() override {
    ControllerTest::TearDown();
    kubelet_.reset();
  }

  // fake_kubelet_logs.py on a free port, and Node "<prefix>-<namespace>"
  // pointing at it.
  void startKubelet(const std::string& nodePrefix) {
    ASSERT_NO_THROW(kubelet_ = std::make_unique<kubetest::FakeKubelet>(
                        *client_, *cluster_, dir_->path(), nodePrefix + "-" + ns_));
  }

  std::unique_ptr<kubetest::FakeKubelet> kubelet_;
};

}  // namespace
}  // namespace distbench::op
