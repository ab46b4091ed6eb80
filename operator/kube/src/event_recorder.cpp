#include "distbench/kube/event_recorder.h"

#include "distbench/kube/bounded_message.h"
#include "distbench/kube/json_fields.h"
#include "distbench/kube/rfc3339.h"

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "distbench/kube/log.h"

namespace distbench::kube {
namespace {

using web::json::value;

// metadata.name is a DNS subdomain.
constexpr std::size_t kMaxNameLength = 253;

value metadataOf(const value& object) {
  return object.is_object() && object.has_field("metadata") ? object.at("metadata")
                                                            : value::object();
}

const char* typeName(EventType type) { return type == EventType::Warning ? "Warning" : "Normal"; }

}  // namespace

EventRecorder::EventRecorder(KubeClient& client, std::string component, std::string host)
    : EventRecorder(client, std::move(component), std::move(host), Options{}) {}

EventRecorder::EventRecorder(KubeClient& client, std::string component, std::string host,
                             Options options, Clock& clock)
    : client_(client),
      component_(std::move(component)),
      host_(std::move(host)),
      options_(options),
      clock_(clock),
      thread_([this] { run(); }) {}

EventRecorder::~EventRecorder() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

namespace {

// Only what an Event names: a queue of whole objects (a benchmark's spec,
// status and managedFields) would cost far more than the Events themselves.
value reference(const value& object) {
  value ref = value::object();
  for (const char* field : {"apiVersion", "kind"}) {
    const std::string v = stringField(object, field);
    if (!v.empty()) ref[field] = value::string(v);
  }
  const value meta = metadataOf(object);
  value kept = value::object();
  for (const char* field : {"name", "namespace", "uid", "resourceVersion"}) {
    const std::string v = stringField(meta, field);
    if (!v.empty()) kept[field] = value::string(v);
  }
  ref["metadata"] = kept;
  return ref;
}

}  // namespace

void EventRecorder::record(const value& involved, EventType type, const std::string& reason,
                           const std::string& message) {
  try {
    Pending event{reference(involved),
                  type,
                  reason,
                  boundedMessage(message),
                  std::chrono::system_clock::now(),
                  clock_.now()};
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!stopping_ && queue_.size() < options_.queueSize) {
        queue_.push_back(std::move(event));
        changed_.notify_all();
        return;
      }
    }
    log::warn("event dropped: too many waiting",
              {{"object", stringField(metadataOf(involved), "name")}, {"reason", reason}});
  } catch (const std::exception& e) {
    // Out of memory, say: still not the reconcile's problem.
    log::warn("event dropped", {{"reason", reason}, {"error", e.what()}});
  }
}

bool EventRecorder::flush(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return stopping_ || (queue_.empty() && !busy_); });
}

void EventRecorder::run() {
  for (;;) {
    Pending event;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      event = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
    }
    write(event);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      busy_ = false;
    }
    changed_.notify_all();
  }
}

void EventRecorder::write(const Pending& event) {
  std::string objectRef;  // for the log, should this fail
  try {
    const value meta = metadataOf(event.involved);
    const std::string name = stringField(meta, "name");
    const std::string objectNs = stringField(meta, "namespace");
    // A cluster-scoped object's events live in "default", as client-go puts them.
    const std::string ns = objectNs.empty() ? "default" : objectNs;
    objectRef = objectNs.empty() ? name : objectNs + "/" + name;
    if (name.empty()) {
      log::warn("event dropped: the object has no name", {{"reason", event.reason}});
      return;
    }
    // The uid tells a re-created object from its predecessor; without one,
    // the object's coordinates stand in for it.
    std::string uid = stringField(meta, "uid");
    if (uid.empty())
      uid = stringField(event.involved, "apiVersion") + "/" + stringField(event.involved, "kind") + "/" +
            objectRef;
    const std::string key =
        uid + '\n' + typeName(event.type) + '\n' + event.reason + '\n' + event.message;

    auto found = written_.find(key);
    if (found != written_.end() &&
        event.seen - found->second.first.last <= options_.aggregationWindow) {
      Written& earlier = found->second.first;
      value patch = value::object();
      patch["count"] = value::number(earlier.count + 1);
      patch["lastTimestamp"] = value::string(formatRfc3339(event.when));
      try {
        client_.mergePatch(earlier.path, patch);
        ++earlier.count;
        earlier.last = event.seen;
        recency_.splice(recency_.begin(), recency_, found->second.second);
        return;
      } catch (const KubeApiError& e) {
        // The Event expired (the API server keeps them an hour) or someone
        // deleted it: start a new one. Anything else: this occurrence is lost.
        if (!e.notFound()) throw;
      }
    }
    const std::string path = create(event, ns);
    remember(key, Written{path, 1, event.seen});
  } catch (const std::exception& e) {
    log::warn("event not recorded", {{"object", objectRef},
                                     {"type", typeName(event.type)},
                                     {"reason", event.reason},
                                     {"error", e.what()}});
  }
}

std::string EventRecorder::create(const Pending& event, const std::string& ns) {
  const value meta = metadataOf(event.involved);
  // client-go's name: the object's, then a hex time stamp that makes it unique.
  const std::string suffix = uniqueSuffix();
  std::string base = stringField(meta, "name");
  if (base.size() + 1 + suffix.size() > kMaxNameLength) {
    base.resize(kMaxNameLength - 1 - suffix.size());
    while (!base.empty() && (base.back() == '-' || base.back() == '.')) base.pop_back();
  }
  const std::string name = base + "." + suffix;

  value involvedObject = value::object();
  for (const char* field : {"apiVersion", "kind"}) {
    const std::string v = stringField(event.involved, field);
    if (!v.empty()) involvedObject[field] = value::string(v);
  }
  for (const char* field : {"name", "namespace", "uid", "resourceVersion"}) {
    const std::string v = stringField(meta, field);
    if (!v.empty()) involvedObject[field] = value::string(v);
  }

  value body = value::object();
  body["apiVersion"] = value::string("v1");
  body["kind"] = value::string("Event");
  body["metadata"] = value::object();
  body["metadata"]["name"] = value::string(name);
  body["metadata"]["namespace"] = value::string(ns);
  body["involvedObject"] = involvedObject;
  body["reason"] = value::string(event.reason);
  body["message"] = value::string(event.message);
  body["type"] = value::string(typeName(event.type));
  body["source"] = value::object();
  body["source"]["component"] = value::string(component_);
  if (!host_.empty()) body["source"]["host"] = value::string(host_);
  const std::string now = formatRfc3339(event.when);
  body["firstTimestamp"] = value::string(now);
  body["lastTimestamp"] = value::string(now);
  body["count"] = value::number(1);
  body["reportingComponent"] = value::string(component_);
  if (!host_.empty()) body["reportingInstance"] = value::string(host_);

  const std::string collection = corePath(ns, "events");
  client_.create(collection, body);
  return collection + "/" + name;
}

void EventRecorder::remember(const std::string& key, Written written) {
  auto found = written_.find(key);
  if (found != written_.end()) {
    found->second.first = std::move(written);
    recency_.splice(recency_.begin(), recency_, found->second.second);
    return;
  }
  recency_.push_front(key);
  written_.emplace(key, std::make_pair(std::move(written), recency_.begin()));
  while (written_.size() > std::max<std::size_t>(1, options_.cacheSize)) {
    written_.erase(recency_.back());
    recency_.pop_back();
  }
}

// Nanoseconds since the epoch, as client-go's, but strictly increasing, so
// that two events of one object in the same nanosecond still differ.
std::string EventRecorder::uniqueSuffix() {
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  lastSuffix_ = std::max(now, lastSuffix_ + 1);
  char hex[24];
  std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(lastSuffix_));
  return hex;
}

}  // namespace distbench::kube
