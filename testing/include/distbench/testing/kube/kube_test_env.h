// The one KubeTestCluster of a test binary and a small HTTP helper for the
// tests that talk to it. kube_test_main.cpp starts the cluster once, before
// the first test, and stops it after the last: starting kube-apiserver takes
// seconds, so tests share it and keep apart by namespace and object names.
#pragma once

#include <cpprest/json.h>
#include <gtest/gtest.h>

#include <string>

#include "distbench/testing/kube/kube_test_cluster.h"

namespace distbench::kubetest {

// Null when the cluster failed to start; startError() then says why.
KubeTestCluster* sharedCluster();
const std::string& startError();

struct Response {
  int status = 0;
  std::string body;
  web::json::value json() const;  // null when the body is not JSON
};

// One request to the shared cluster, TLS verified against its CA, with the
// admin token unless `authenticated` is false. Throws on transport errors.
Response call(const web::http::method& method, const std::string& path, const std::string& body = "",
              const std::string& contentType = "application/json", bool authenticated = true);

// A test fixture that fails each test up front when there is no cluster.
class KubeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = sharedCluster();
    if (!cluster_) GTEST_FAIL() << "the test cluster did not start: " << startError();
  }
  KubeTestCluster* cluster_ = nullptr;
};

}  // namespace distbench::kubetest
