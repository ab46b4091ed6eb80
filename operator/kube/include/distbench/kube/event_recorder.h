// Kubernetes Events (core/v1) on the objects the operator manages, as
// client-go's record.EventRecorder writes them: what `kubectl describe` shows
// under "Events:". A repeat of the same event (same object, type, reason and
// message) within ten minutes of the last one bumps the existing Event's
// count and lastTimestamp instead of adding another, so a reconcile that fails
// the same way every few seconds makes one line, "x42 over 3m".
//
// record() only queues: a background thread writes to the API server, so a
// reconcile never waits on an event and never fails because of one. Events
// are best effort: a full queue or a failed write is logged and dropped.
#pragma once

#include <cpprest/json.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <list>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include "distbench/kube/clock.h"
#include "distbench/kube/kube_client.h"

namespace distbench::kube {

enum class EventType { Normal, Warning };

class EventRecorder {
 public:
  struct Options {
    // A repeat this soon after the previous occurrence updates its Event.
    std::chrono::seconds aggregationWindow{600};
    // Distinct events remembered for aggregation; the least recently seen go.
    std::size_t cacheSize = 4096;
    // Events waiting for the writer; more are dropped (client-go: 1000).
    std::size_t queueSize = 1000;
  };

  // `component`: source.component and reportingComponent, e.g.
  // "distbench-operator"; `host`: source.host and reportingInstance (the
  // pod's name). `clock` times the aggregation window; event timestamps
  // come from the system clock. `client` must outlive the recorder.
  EventRecorder(KubeClient& client, std::string component, std::string host);
  EventRecorder(KubeClient& client, std::string component, std::string host, Options options,
                Clock& clock = steadyClock());
  // Writes what is queued no longer: stops after the write in flight.
  ~EventRecorder();
  EventRecorder(const EventRecorder&) = delete;
  EventRecorder& operator=(const EventRecorder&) = delete;

  // `involved`: the object as the API returns it (apiVersion, kind, metadata
  // name, namespace, uid, resourceVersion). The Event goes to the object's
  // namespace, or "default" for a cluster-scoped object. `reason`: UpperCamelCase,
  // e.g. "PodsCreated"; `message`: for a person, bounded (boundedMessage). Never
  // throws; safe from any thread.
  void record(const web::json::value& involved, EventType type, const std::string& reason,
              const std::string& message);

  // Blocks until everything recorded so far has been written (or dropped),
  // or `timeout` passes; false on timeout. For tests and orderly shutdown.
  bool flush(std::chrono::milliseconds timeout);

 private:
  struct Pending {
    web::json::value involved;
    EventType type = EventType::Normal;
    std::string reason;
    std::string message;
    std::chrono::system_clock::time_point when;  // for the Event's timestamps
    Clock::TimePoint seen;                       // for the aggregation window
  };
  // An Event written before, for aggregation.
  struct Written {
    std::string path;  // .../events/<name>
    int count = 1;
    Clock::TimePoint last;
  };

  void run();
  void write(const Pending& event);
  // Creates a new Event; returns its path, "" when the create failed.
  std::string create(const Pending& event, const std::string& ns);
  void remember(const std::string& key, Written written);
  std::string uniqueSuffix();

  KubeClient& client_;
  const std::string component_;
  const std::string host_;
  const Options options_;
  Clock& clock_;

  std::mutex mutex_;  // guards queue_, busy_, stopping_
  std::condition_variable changed_;
  std::deque<Pending> queue_;
  bool busy_ = false;  // the writer holds an event taken off the queue
  bool stopping_ = false;

  // Touched by the writer thread only.
  std::list<std::string> recency_;  // keys, most recently seen first
  std::unordered_map<std::string, std::pair<Written, std::list<std::string>::iterator>> written_;
  int64_t lastSuffix_ = 0;

  std::thread thread_;  // last: starts after everything above exists
};

}  // namespace distbench::kube
