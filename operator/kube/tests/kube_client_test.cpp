// The client against a real kube-apiserver (KubeTestCluster): CRUD with the
// API's Status in errors, TLS and token checks that really refuse, and
// watches that stream events as they happen and stop when told.
#include "distbench/kube/kube_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <set>
#include <thread>

#include "distbench/process/temp_dir.h"
#include "distbench/testing/kube/kube_test_env.h"

namespace distbench::kube {
namespace {

using ::testing::HasSubstr;
using web::json::value;

// The binary's shared cluster (kube_test_main.cpp), through a kubeconfig as
// a user would point the operator at it.
class KubeClientTest : public kubetest::KubeTest {
 protected:
  void SetUp() override {
    kubetest::KubeTest::SetUp();
    if (!cluster_ || !config_.server.empty()) return;
    dir_ = std::make_unique<process::TempDir>("kube-client-test-");
    cluster_->writeKubeconfig(dir_->path() + "/kubeconfig");
    config_ = loadKubeconfig(dir_->path() + "/kubeconfig");
    KubeClient(config_).create(corePath("", "namespaces"), object("Namespace", "client-test"));
  }

  static value object(const std::string& kind, const std::string& name) {
    value v = value::object();
    v["apiVersion"] = value::string("v1");
    v["kind"] = value::string(kind);
    v["metadata"] = value::object();
    v["metadata"]["name"] = value::string(name);
    return v;
  }
  static value configMap(const std::string& name, const std::string& data) {
    value v = object("ConfigMap", name);
    v["data"] = value::object();
    v["data"]["k"] = value::string(data);
    return v;
  }

  static std::unique_ptr<process::TempDir> dir_;
  static KubeConfig config_;
};

std::unique_ptr<process::TempDir> KubeClientTest::dir_;
KubeConfig KubeClientTest::config_;

TEST_F(KubeClientTest, CreateGetPatchDeleteWithStatusErrors) {
  KubeClient client(config_);
  const std::string cms = corePath("client-test", "configmaps");
  client.create(cms, configMap("one", "a"));
  EXPECT_EQ(client.get(cms + "/one").at("data").at("k").as_string(), "a");
  value patch = value::object();
  patch["data"] = value::object();
  patch["data"]["k"] = value::string("b");
  EXPECT_EQ(client.mergePatch(cms + "/one", patch).at("data").at("k").as_string(), "b");
  try {
    client.create(cms, configMap("one", "c"));
    FAIL() << "created twice";
  } catch (const KubeApiError& e) {
    EXPECT_TRUE(e.alreadyExists()) << e.what();
    EXPECT_THAT(e.what(), HasSubstr("\"one\" already exists"));
  }
  client.remove(cms + "/one");
  client.remove(cms + "/one");  // already gone: not an error
  try {
    client.get(cms + "/one");
    FAIL() << "still there";
  } catch (const KubeApiError& e) {
    EXPECT_TRUE(e.notFound());
    EXPECT_EQ(e.reason(), "NotFound");
    EXPECT_THAT(e.what(), HasSubstr("GET /api/v1/namespaces/client-test/configmaps/one: 404"));
  }
}

TEST_F(KubeClientTest, RefusesAServerItCannotVerifyAndABadToken) {
  KubeConfig untrusted = config_;
  untrusted.caPem.clear();  // only the system's CAs: the test CA is not among them
  try {
    KubeClient(untrusted).get("/version");
    FAIL() << "talked to an unverified server";
  } catch (const KubeApiError& e) {
    EXPECT_EQ(e.code(), 0) << e.what();
  }
  KubeConfig wrongToken = config_;
  wrongToken.token = "not-the-token";
  try {
    KubeClient(wrongToken).get("/api/v1/namespaces");
    FAIL() << "accepted a bad token";
  } catch (const KubeApiError& e) {
    EXPECT_EQ(e.code(), 401) << e.what();
  }
}

TEST_F(KubeClientTest, WatchStreamsEventsFromTheListsVersionAndStopsWhenCancelled) {
  KubeClient client(config_);
  const std::string cms = corePath("client-test", "configmaps");
  const std::string rv = client.get(cms).at("metadata").at("resourceVersion").as_string();

  pplx::cancellation_token_source cancel;
  std::mutex mutex;
  std::set<std::string> added;
  std::promise<void> sawBoth;
  std::thread watcher([&] {
    client.watch(
        cms, rv, 30,
        [&](const WatchEvent& e) {
          if (e.type != "ADDED") return true;
          std::lock_guard<std::mutex> lock(mutex);
          added.insert(e.object.at("metadata").at("name").as_string());
          if (added.size() == 2) sawBoth.set_value();
          return true;
        },
        cancel.get_token());
  });
  client.create(cms, configMap("w1", "x"));
  client.create(cms, configMap("w2", "y"));
  EXPECT_EQ(sawBoth.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
  const auto stopAt = std::chrono::steady_clock::now();
  cancel.cancel();
  watcher.join();
  EXPECT_LT(std::chrono::steady_clock::now() - stopAt, std::chrono::seconds(5));
  EXPECT_EQ(added, (std::set<std::string>{"w1", "w2"}));
}

TEST_F(KubeClientTest, WatchEndsWhenTheServerEndsIt) {
  KubeClient client(config_);
  const std::string cms = corePath("client-test", "configmaps");
  const std::string rv = client.get(cms).at("metadata").at("resourceVersion").as_string();
  const auto start = std::chrono::steady_clock::now();
  client.watch(cms, rv, 1, [](const WatchEvent&) { return true; });
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

}  // namespace
}  // namespace distbench::kube
