// The fixture itself against the real server: TLS verified with its CA, token
// authentication, RBAC, objects kept in etcd across an apiserver restart, and
// the controller-manager's service accounts and garbage collection, which the
// operator relies on.
#include <yaml-cpp/yaml.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "kube_test_env.h"

namespace distbench::kubetest {
namespace {

using web::http::methods;
using Clock = std::chrono::steady_clock;

std::string str(const web::json::value& v) { return utility::conversions::to_utf8string(v.as_string()); }

void createNamespace(const std::string& name) {
  Response r = call(methods::POST, "/api/v1/namespaces",
                    R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + name + R"("}})");
  ASSERT_TRUE(r.status == 201 || r.status == 409) << r.status << " " << r.body;
}

std::string configMap(const std::string& name, const std::string& value, const std::string& owner = "") {
  std::string meta = R"("name":")" + name + R"(")";
  if (!owner.empty())
    meta += R"(,"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"owner","uid":")" + owner +
            R"(","controller":true,"blockOwnerDeletion":true}])";
  return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{)" + meta + R"(},"data":{"key":")" + value +
         R"("}})";
}

class KubeTestClusterTest : public KubeTest {};

TEST_F(KubeTestClusterTest, ServesVersion) {
  Response r = call(methods::GET, "/version");
  ASSERT_EQ(r.status, 200) << r.body;
  std::string version = str(r.json().at("gitVersion"));
  EXPECT_EQ(version.rfind("v1.20", 0), 0u) << version;
}

TEST_F(KubeTestClusterTest, CreatesNamespaceAndConfigMap) {
  Response ns = call(methods::POST, "/api/v1/namespaces",
                     R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"fixture-basic"}})");
  ASSERT_EQ(ns.status, 201) << ns.body;
  Response created = call(methods::POST, "/api/v1/namespaces/fixture-basic/configmaps", configMap("cm", "hello"));
  ASSERT_EQ(created.status, 201) << created.body;
  Response got = call(methods::GET, "/api/v1/namespaces/fixture-basic/configmaps/cm");
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(str(got.json().at("data").at("key")), "hello");
}

TEST_F(KubeTestClusterTest, RejectsRequestsWithoutValidToken) {
  Response none = call(methods::GET, "/api/v1/namespaces", "", "", /*authenticated=*/false);
  EXPECT_EQ(none.status, 401) << none.body;

  web::http::client::http_client client(utility::conversions::to_string_t(cluster_->url()),
                                        cluster_->clientConfig());
  web::http::http_request request(methods::GET);
  request.set_request_uri("/api/v1/namespaces");
  request.headers().add("Authorization", "Bearer not-the-token");
  EXPECT_EQ(client.request(request).get().status_code(), 401);
}

TEST_F(KubeTestClusterTest, VerifiesServerCertificate) {
  // Without the cluster's CA the handshake must fail: TLS is really checked.
  web::http::client::http_client_config config;
  config.set_timeout(std::chrono::seconds(10));
  web::http::client::http_client client(utility::conversions::to_string_t(cluster_->url()), config);
  EXPECT_THROW(client.request(methods::GET, "/version").get(), web::http::http_exception);
}

TEST_F(KubeTestClusterTest, WritesKubeconfig) {
  std::string path = cluster_->directory() + "/test.kubeconfig";
  cluster_->writeKubeconfig(path);
  YAML::Node config = YAML::LoadFile(path);
  std::string context = config["current-context"].as<std::string>();
  ASSERT_EQ(context, "distbench-test");
  EXPECT_EQ(config["clusters"][0]["cluster"]["server"].as<std::string>(), cluster_->url());
  std::string ca = config["clusters"][0]["cluster"]["certificate-authority"].as<std::string>();
  EXPECT_EQ(ca, cluster_->caFile());
  EXPECT_TRUE(std::filesystem::exists(ca));
  EXPECT_EQ(config["users"][0]["user"]["token"].as<std::string>(), cluster_->token());
}

TEST_F(KubeTestClusterTest, ControllerManagerCreatesServiceAccountsAndCollectsGarbage) {
  ASSERT_NO_THROW(cluster_->startControllerManager());
  createNamespace("fixture-gc");

  // Every new namespace gets its "default" ServiceAccount (pods need it).
  auto deadline = Clock::now() + std::chrono::seconds(60);
  Response sa;
  while ((sa = call(methods::GET, "/api/v1/namespaces/fixture-gc/serviceaccounts/default")).status != 200 &&
         Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_EQ(sa.status, 200) << sa.body << "\n" << cluster_->controllerManagerLogTail();

  // An owned object goes when its owner does.
  Response owner = call(methods::POST, "/api/v1/namespaces/fixture-gc/configmaps", configMap("owner", "o"));
  ASSERT_EQ(owner.status, 201) << owner.body;
  std::string uid = str(owner.json().at("metadata").at("uid"));
  Response owned =
      call(methods::POST, "/api/v1/namespaces/fixture-gc/configmaps", configMap("owned", "x", uid));
  ASSERT_EQ(owned.status, 201) << owned.body;
  Response deleted = call(methods::DEL, "/api/v1/namespaces/fixture-gc/configmaps/owner");
  ASSERT_EQ(deleted.status, 200) << deleted.body;

  deadline = Clock::now() + std::chrono::seconds(60);
  Response gone;
  while ((gone = call(methods::GET, "/api/v1/namespaces/fixture-gc/configmaps/owned")).status != 404 &&
         Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(gone.status, 404) << "owned ConfigMap not garbage-collected\n" << cluster_->controllerManagerLogTail();
}

// Last: the restart drops every connection.
TEST_F(KubeTestClusterTest, RestartApiServerKeepsEtcdData) {
  createNamespace("fixture-restart");
  Response created =
      call(methods::POST, "/api/v1/namespaces/fixture-restart/configmaps", configMap("survivor", "kept"));
  ASSERT_EQ(created.status, 201) << created.body;

  std::string url = cluster_->url();
  ASSERT_NO_THROW(cluster_->restartApiServer());
  EXPECT_EQ(cluster_->url(), url);

  Response got = call(methods::GET, "/api/v1/namespaces/fixture-restart/configmaps/survivor");
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(str(got.json().at("data").at("key")), "kept");
  EXPECT_EQ(str(got.json().at("metadata").at("uid")), str(created.json().at("metadata").at("uid")));
}

}  // namespace
}  // namespace distbench::kubetest
