// Events written to a real kube-apiserver and read back as `kubectl describe`
// would list them: one Event per distinct occurrence, a repeat within the
// window counted on the same Event, a repeat after it a new one, and an API
// failure swallowed instead of thrown.
#include "distbench/kube/event_recorder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "distbench/process/temp_dir.h"
#include "distbench/testing/kube/kube_test_env.h"
#include "distbench/testing/kube/kube_test_helpers.h"
#include "manual_clock.h"

namespace distbench::kube {
namespace {

using namespace std::chrono_literals;
using web::json::value;

constexpr char kNamespace[] = "event-recorder-test";
constexpr auto kFlush = 30s;

class EventRecorderTest : public kubetest::KubeTest {
 protected:
  void SetUp() override {
    kubetest::KubeTest::SetUp();
    if (!cluster_) return;
    if (config_.server.empty()) {
      dir_ = std::make_unique<process::TempDir>("event-recorder-test-");
      cluster_->writeKubeconfig(dir_->path() + "/kubeconfig");
      config_ = loadKubeconfig(dir_->path() + "/kubeconfig");
      KubeClient client(config_);
      kubetest::ensureNamespace(client, kNamespace);
    }
    client_ = std::make_unique<KubeClient>(config_);
  }

  // A ConfigMap to hang events on, as the API returns it (uid and all).
  value configMap(const std::string& name) {
    value cm = value::object();
    cm["apiVersion"] = value::string("v1");
    cm["kind"] = value::string("ConfigMap");
    cm["metadata"] = value::object();
    cm["metadata"]["name"] = value::string(name);
    return client_->create(corePath(kNamespace, "configmaps"), cm);
  }

  std::vector<value> eventsOf(const std::string& name) {
    const value list = client_->get(corePath(kNamespace, "events") +
                                    "?fieldSelector=" + queryEscape("involvedObject.name=" + name));
    std::vector<value> events;
    for (const value& item : list.at("items").as_array()) events.push_back(item);
    return events;
  }

  static std::unique_ptr<process::TempDir> dir_;
  static KubeConfig config_;
  std::unique_ptr<KubeClient> client_;
};

std::unique_ptr<process::TempDir> EventRecorderTest::dir_;
KubeConfig EventRecorderTest::config_;

TEST_F(EventRecorderTest, RecordsAnEventOnTheObject) {
  const value cm = configMap("recorded");
  EventRecorder recorder(*client_, "distbench-operator", "operator-0");
  recorder.record(cm, EventType::Normal, "PodsCreated", "created 3 pods");
  ASSERT_TRUE(recorder.flush(kFlush));

  const auto events = eventsOf("recorded");
  ASSERT_EQ(events.size(), 1u);
  const value& e = events[0];
  EXPECT_EQ(e.at("type").as_string(), "Normal");
  EXPECT_EQ(e.at("reason").as_string(), "PodsCreated");
  EXPECT_EQ(e.at("message").as_string(), "created 3 pods");
  EXPECT_EQ(e.at("count").as_integer(), 1);
  EXPECT_EQ(e.at("metadata").at("name").as_string().rfind("recorded.", 0), 0u);
  EXPECT_EQ(e.at("source").at("component").as_string(), "distbench-operator");
  EXPECT_EQ(e.at("source").at("host").as_string(), "operator-0");
  EXPECT_EQ(e.at("reportingComponent").as_string(), "distbench-operator");
  EXPECT_EQ(e.at("firstTimestamp").as_string(), e.at("lastTimestamp").as_string());
  const value& involved = e.at("involvedObject");
  EXPECT_EQ(involved.at("kind").as_string(), "ConfigMap");
  EXPECT_EQ(involved.at("namespace").as_string(), kNamespace);
  EXPECT_EQ(involved.at("uid").as_string(), cm.at("metadata").at("uid").as_string());
  EXPECT_EQ(involved.at("resourceVersion").as_string(),
            cm.at("metadata").at("resourceVersion").as_string());
}

TEST_F(EventRecorderTest, ALongMessageIsCutBetweenCharactersAndSaysSo) {
  const value cm = configMap("wordy");
  std::string message;
  for (int i = 0; i < 1500; ++i) message += "€";  // 4500 bytes, three a character
  EventRecorder recorder(*client_, "distbench-operator", "operator-0");
  recorder.record(cm, EventType::Warning, "ReportDamaged", message);
  ASSERT_TRUE(recorder.flush(kFlush));

  const auto events = eventsOf("wordy");
  ASSERT_EQ(events.size(), 1u);
  const std::string stored = events[0].at("message").as_string();
  EXPECT_LE(stored.size(), 1024u);
  const std::string marker = "... [cut, 4500 bytes in all]";
  ASSERT_GT(stored.size(), marker.size());
  EXPECT_EQ(stored.substr(stored.size() - marker.size()), marker);
  const std::string kept = stored.substr(0, stored.size() - marker.size());
  EXPECT_EQ(kept.size() % 3, 0u) << "cut inside a character";
  EXPECT_EQ(kept, message.substr(0, kept.size()));
}

TEST_F(EventRecorderTest, ARepeatIsCountedOnTheSameEvent) {
  const value cm = configMap("repeated");
  EventRecorder recorder(*client_, "distbench-operator", "operator-0");
  recorder.record(cm, EventType::Warning, "CreateFailed", "quota exceeded");
  recorder.record(cm, EventType::Warning, "CreateFailed", "quota exceeded");
  // Another message, type or reason is another event.
  recorder.record(cm, EventType::Warning, "CreateFailed", "node not ready");
  recorder.record(cm, EventType::Normal, "CreateFailed", "quota exceeded");
  ASSERT_TRUE(recorder.flush(kFlush));

  const auto events = eventsOf("repeated");
  ASSERT_EQ(events.size(), 3u);
  int counted = 0;
  for (const value& e : events) {
    if (e.at("type").as_string() == "Warning" && e.at("message").as_string() == "quota exceeded") {
      EXPECT_EQ(e.at("count").as_integer(), 2);
      ++counted;
    } else {
      EXPECT_EQ(e.at("count").as_integer(), 1);
    }
  }
  EXPECT_EQ(counted, 1);
}

TEST_F(EventRecorderTest, ARepeatAfterTheWindowIsANewEvent) {
  const value cm = configMap("windowed");
  testing::ManualClock clock;
  EventRecorder recorder(*client_, "distbench-operator", "operator-0", EventRecorder::Options{},
                         clock);
  recorder.record(cm, EventType::Normal, "Started", "running");
  clock.advance(9min);
  recorder.record(cm, EventType::Normal, "Started", "running");  // 9 min after the last: counted
  clock.advance(9min);
  recorder.record(cm, EventType::Normal, "Started", "running");  // still within 10 min of the last
  clock.advance(11min);
  recorder.record(cm, EventType::Normal, "Started", "running");  // too late: a new Event
  ASSERT_TRUE(recorder.flush(kFlush));

  const auto events = eventsOf("windowed");
  ASSERT_EQ(events.size(), 2u);
  std::vector<int> counts;
  for (const value& e : events) counts.push_back(e.at("count").as_integer());
  std::sort(counts.begin(), counts.end());
  EXPECT_EQ(counts, (std::vector<int>{1, 3}));
}

TEST_F(EventRecorderTest, ADeletedEventIsRecreatedOnTheNextRepeat) {
  const value cm = configMap("deleted-event");
  EventRecorder recorder(*client_, "distbench-operator", "operator-0");
  recorder.record(cm, EventType::Normal, "Synced", "ok");
  ASSERT_TRUE(recorder.flush(kFlush));
  auto events = eventsOf("deleted-event");
  ASSERT_EQ(events.size(), 1u);
  client_->remove(corePath(kNamespace, "events", events[0].at("metadata").at("name").as_string()));

  recorder.record(cm, EventType::Normal, "Synced", "ok");
  ASSERT_TRUE(recorder.flush(kFlush));
  events = eventsOf("deleted-event");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].at("count").as_integer(), 1);
}

TEST_F(EventRecorderTest, AFailedWriteIsSwallowed) {
  // A namespace that does not exist: the API server refuses the Event.
  value ghost = value::object();
  ghost["apiVersion"] = value::string("v1");
  ghost["kind"] = value::string("ConfigMap");
  ghost["metadata"] = value::object();
  ghost["metadata"]["name"] = value::string("ghost");
  ghost["metadata"]["namespace"] = value::string("no-such-namespace");
  EventRecorder recorder(*client_, "distbench-operator", "operator-0");
  EXPECT_NO_THROW(recorder.record(ghost, EventType::Warning, "Lost", "nobody hears this"));
  EXPECT_NO_THROW(recorder.record(value::null(), EventType::Warning, "Lost", "no object at all"));
  EXPECT_TRUE(recorder.flush(kFlush));

  // Still working afterwards.
  const value cm = configMap("after-failure");
  recorder.record(cm, EventType::Normal, "Recovered", "fine");
  ASSERT_TRUE(recorder.flush(kFlush));
  EXPECT_EQ(eventsOf("after-failure").size(), 1u);
}

}  // namespace
}  // namespace distbench::kube
