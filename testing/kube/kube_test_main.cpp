#include <chrono>
#include <cstdio>
#include <memory>

#include "distbench/testing/kube/kube_test_env.h"

namespace distbench::kubetest {
namespace {

std::unique_ptr<KubeTestCluster> cluster;
std::string error;

class ClusterEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    auto start = std::chrono::steady_clock::now();
    try {
      cluster = std::make_unique<KubeTestCluster>();
    } catch (const std::exception& e) {
      error = e.what();
      FAIL() << "cannot start the test cluster: " << error;
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("[ cluster  ] etcd + kube-apiserver at %s ready in %.1f s (%s)\n", cluster->url().c_str(),
                seconds, cluster->directory().c_str());
  }
  void TearDown() override { cluster.reset(); }
};

}  // namespace

KubeTestCluster* sharedCluster() { return cluster.get(); }
const std::string& startError() { return error; }

web::json::value Response::json() const {
  try {
    return web::json::value::parse(utility::conversions::to_string_t(body));
  } catch (const std::exception&) {
    return web::json::value::null();
  }
}

Response call(const web::http::method& method, const std::string& path, const std::string& body,
              const std::string& contentType, bool authenticated) {
  KubeTestCluster* c = sharedCluster();
  if (!c) throw std::runtime_error("no test cluster: " + error);
  web::http::client::http_client client(utility::conversions::to_string_t(c->url()), c->clientConfig());
  web::http::http_request request(method);
  request.set_request_uri(utility::conversions::to_string_t(path));
  if (authenticated)
    request.headers().add("Authorization", "Bearer " + utility::conversions::to_string_t(c->token()));
  request.headers().add("Accept", "application/json");
  if (!body.empty()) request.set_body(body, contentType);
  web::http::http_response response = client.request(request).get();
  return Response{response.status_code(), response.extract_utf8string(true).get()};
}

}  // namespace distbench::kubetest

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new distbench::kubetest::ClusterEnvironment);
  return RUN_ALL_TESTS();
}
