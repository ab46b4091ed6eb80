// The informer against a real kube-apiserver (KubeTestCluster): it lists,
// then follows the watch; filters by label; survives the API server
// restarting; and re-lists when the version it watches from is gone. Each
// test has its own namespace, so what one test creates never shows in
// another's cache.
#include "distbench/kube/informer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "distbench/process/temp_dir.h"
#include "distbench/testing/kube/kube_test_env.h"
#include "distbench/testing/kube/kube_test_helpers.h"

namespace distbench::kube {
namespace {

using web::json::value;
using namespace std::chrono_literals;

using kubetest::eventually;

// The label the filter tests select on: the one the operator's informers
// watch, though the informer knows nothing of it.
constexpr const char* kOwnerLabel = "distbench.io/benchmark";

value configMap(const std::string& name, const std::string& data, bool labelled = false) {
  value v = value::object();
  v["apiVersion"] = value::string("v1");
  v["kind"] = value::string("ConfigMap");
  v["metadata"] = value::object();
  v["metadata"]["name"] = value::string(name);
  if (labelled) {
    v["metadata"]["labels"] = value::object();
    v["metadata"]["labels"][kOwnerLabel] = value::string("bench");
  }
  v["data"] = value::object();
  v["data"]["k"] = value::string(data);
  return v;
}

std::string dataOf(const std::optional<value>& object) {
  return object ? object->at("data").at("k").as_string() : "";
}
std::string dataOf(const value& object) { return dataOf(std::optional<value>(object)); }

// What handlers saw, for tests to poll.
class Recorder {
 public:
  Informer::Handler handler() {
    return [this](const std::string& key, const value& object, bool deleted) {
      std::lock_guard<std::mutex> lock(mutex_);
      events_.push_back({key, !deleted, dataOf(object)});
    };
  }
  // `data`: when not empty, the object's data.k as the handler got it.
  bool saw(const std::string& key, bool present, const std::string& data = "") const {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const Seen& e : events_) {
      if (e.key == key && e.present == present && (data.empty() || e.data == data)) return true;
    }
    return false;
  }

 private:
  struct Seen {
    std::string key;
    bool present;
    std::string data;
  };
  mutable std::mutex mutex_;
  std::vector<Seen> events_;
};

class InformerTest : public kubetest::KubeTest {
 protected:
  void SetUp() override {
    kubetest::KubeTest::SetUp();
    if (!cluster_) return;
    dir_ = std::make_unique<process::TempDir>("informer-test-");
    cluster_->writeKubeconfig(dir_->path() + "/kubeconfig");
    config_ = loadKubeconfig(dir_->path() + "/kubeconfig");
    client_ = std::make_unique<KubeClient>(config_);
  }

  // A namespace of the test's own.
  std::string makeNamespace(const std::string& name) {
    value ns = value::object();
    ns["apiVersion"] = value::string("v1");
    ns["kind"] = value::string("Namespace");
    ns["metadata"] = value::object();
    ns["metadata"]["name"] = value::string(name);
    try {
      client_->create(corePath("", "namespaces"), ns);
    } catch (const KubeApiError& e) {
      if (!e.alreadyExists()) throw;
    }
    return name;
  }

  static Informer::Options fast() {
    Informer::Options options;
    options.watchTimeoutSeconds = 60;
    options.backoffMax = std::chrono::seconds(1);
    return options;
  }

  std::unique_ptr<process::TempDir> dir_;
  KubeConfig config_;
  std::unique_ptr<KubeClient> client_;
};

TEST_F(InformerTest, SyncsTheListThenFollowsCreatesUpdatesAndDeletes) {
  const std::string ns = makeNamespace("informer-sync");
  const std::string cms = corePath(ns, "configmaps");
  client_->create(cms, configMap("before", "a"));

  Informer informer(*client_, cms, "", fast());
  Recorder recorder;
  informer.onChange(recorder.handler());
  EXPECT_FALSE(informer.hasSynced());
  informer.start();
  ASSERT_TRUE(informer.waitForSync(30s));
  EXPECT_EQ(dataOf(informer.get(ns + "/before")), "a");
  // Handlers run after the cache changes, on the informer's thread: what the
  // cache shows, the recorder sees a moment later.
  EXPECT_TRUE(eventually([&] { return recorder.saw(ns + "/before", true); }));

  client_->create(cms, configMap("after", "x"));
  EXPECT_TRUE(eventually([&] { return dataOf(informer.get(ns + "/after")) == "x"; }));
  EXPECT_TRUE(eventually([&] { return recorder.saw(ns + "/after", true); }));

  value patch = value::object();
  patch["data"] = value::object();
  patch["data"]["k"] = value::string("y");
  client_->mergePatch(cms + "/after", patch);
  EXPECT_TRUE(eventually([&] { return dataOf(informer.get(ns + "/after")) == "y"; }));

  client_->remove(cms + "/before");
  EXPECT_TRUE(eventually([&] { return !informer.get(ns + "/before"); }));
  // The handler of a deletion gets the object as it last was.
  EXPECT_TRUE(eventually([&] { return recorder.saw(ns + "/before", false, "a"); }));
  EXPECT_EQ(informer.list().size(), 1u);
  EXPECT_EQ(informer.relists(), 0);

  const auto stopAt = std::chrono::steady_clock::now();
  informer.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - stopAt, 5s);
}

TEST_F(InformerTest, CachesOnlyObjectsWithTheLabel) {
  const std::string ns = makeNamespace("informer-labels");
  const std::string cms = corePath(ns, "configmaps");
  client_->create(cms, configMap("owned", "a", true));
  client_->create(cms, configMap("other", "b"));

  Informer informer(*client_, cms, kOwnerLabel, fast());
  Recorder recorder;
  informer.onChange(recorder.handler());
  informer.start();
  ASSERT_TRUE(informer.waitForSync(30s));
  EXPECT_TRUE(informer.get(ns + "/owned"));
  EXPECT_FALSE(informer.get(ns + "/other"));

  // Created in this order, so once owned2 shows, other2 would have shown too.
  client_->create(cms, configMap("other2", "c"));
  client_->create(cms, configMap("owned2", "d", true));
  EXPECT_TRUE(eventually([&] { return informer.get(ns + "/owned2").has_value(); }));
  EXPECT_FALSE(informer.get(ns + "/other2"));
  EXPECT_FALSE(recorder.saw(ns + "/other2", true));

  // Losing the label reads as a deletion to a filtered watch.
  value patch = value::object();
  patch["metadata"] = value::object();
  patch["metadata"]["labels"] = value::object();
  patch["metadata"]["labels"][kOwnerLabel] = value::null();
  client_->mergePatch(cms + "/owned", patch);
  EXPECT_TRUE(eventually([&] { return !informer.get(ns + "/owned"); }));
  EXPECT_TRUE(eventually([&] { return recorder.saw(ns + "/owned", false); }));
  EXPECT_EQ(informer.list().size(), 1u);
}

TEST_F(InformerTest, ReconnectsAfterTheApiServerRestarts) {
  const std::string ns = makeNamespace("informer-restart");
  const std::string cms = corePath(ns, "configmaps");
  Informer informer(*client_, cms, "", fast());
  informer.start();
  ASSERT_TRUE(informer.waitForSync(30s));
  client_->create(cms, configMap("before-restart", "a"));
  ASSERT_TRUE(eventually([&] { return informer.get(ns + "/before-restart").has_value(); }));

  cluster_->restartApiServer();  // main thread: the cluster's processes belong to it

  // A fresh client: the old one's pooled connections died with the server.
  KubeClient(config_).create(cms, configMap("after-restart", "b"));
  EXPECT_TRUE(eventually([&] { return informer.get(ns + "/after-restart").has_value(); }, 60s));
  EXPECT_TRUE(informer.get(ns + "/before-restart"));
  EXPECT_GT(informer.watchRestarts(), 0);

  const auto stopAt = std::chrono::steady_clock::now();
  informer.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - stopAt, 5s);
}

// Whether a watch of `path` from resourceVersion 1 answers 410 Expired (an
// ERROR event), as it does once the API server's watch cache starts later.
bool versionOneIsGone(const std::string& path) {
  const kubetest::Response r =
      kubetest::call(web::http::methods::GET, path + "?watch=1&resourceVersion=1&timeoutSeconds=1");
  if (r.status == 410) return true;
  const value first = kubetest::Response{r.status, r.body.substr(0, r.body.find('\n'))}.json();
  return first.is_object() && first.has_field("type") && first.at("type").as_string() == "ERROR" &&
         first.at("object").has_field("code") && first.at("object").at("code").as_integer() == 410;
}

TEST_F(InformerTest, RelistsWhenTheWatchedVersionIsGone) {
  const std::string ns = makeNamespace("informer-gone");
  const std::string cms = corePath(ns, "configmaps");
  client_->create(cms, configMap("listed", "a"));
  // The watch cache keeps every event since it listed at API server start
  // until it fills up: on a fresh cluster (this test alone) it may still
  // hold version 1. A restarted API server lists anew, at a version well
  // past 1 (the objects made since etcd started), so 1 is then too old.
  if (!versionOneIsGone(cms)) {
    cluster_->restartApiServer();  // main thread: the cluster's processes belong to it
    client_ = std::make_unique<KubeClient>(config_);  // the old one's connections died
    ASSERT_TRUE(versionOneIsGone(cms)) << "resourceVersion 1 still served after a restart";
  }
  Informer informer(*client_, cms, "", fast());
  Recorder recorder;
  informer.onChange(recorder.handler());
  // Older than anything the watch cache holds: kube-apiserver answers with an
  // ERROR event carrying 410 Expired.
  informer.forceResourceVersionForTest("1");
  informer.start();
  ASSERT_TRUE(informer.waitForSync(30s));
  EXPECT_TRUE(eventually([&] { return informer.relists() >= 1; }));
  EXPECT_GE(informer.watchRestarts(), 1);

  client_->create(cms, configMap("watched", "b"));
  EXPECT_TRUE(eventually([&] { return informer.get(ns + "/watched").has_value(); }));
  EXPECT_TRUE(informer.get(ns + "/listed"));
  EXPECT_EQ(informer.relists(), 1);
}

TEST(InformerGone, ClassifiesErrorEventsAndKeys) {
  value status = value::object();
  status["kind"] = value::string("Status");
  status["code"] = value::number(410);
  status["reason"] = value::string("Expired");
  EXPECT_TRUE(isGoneEvent({"ERROR", status}));
  EXPECT_FALSE(isGoneEvent({"MODIFIED", status}));  // an object that merely has a "code"

  value internal = value::object();
  internal["code"] = value::number(500);
  internal["reason"] = value::string("InternalError");
  EXPECT_FALSE(isGoneEvent({"ERROR", internal}));

  value noCode = value::object();
  noCode["reason"] = value::string("Expired");
  EXPECT_TRUE(isGoneEvent({"ERROR", noCode}));
  EXPECT_FALSE(isGoneEvent({"ERROR", value::null()}));

  // The HTTP-status form of 410 arrives as a KubeApiError.
  EXPECT_TRUE(KubeApiError(410, "Expired", "too old").gone());

  value pod = value::object();
  pod["metadata"] = value::object();
  pod["metadata"]["name"] = value::string("p");
  EXPECT_EQ(objectKey(pod), "p");  // cluster-scoped
  pod["metadata"]["namespace"] = value::string("ns");
  EXPECT_EQ(objectKey(pod), "ns/p");
}

}  // namespace
}  // namespace distbench::kube
