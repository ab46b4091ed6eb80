// One reconcile's view of its object, as every controller's reconcile opens
// it: read fresh from the API server (never the cache, so that a decision
// never rests on a status older than this controller's last write), its
// status changed in memory, written once through the status subresource,
// and the Events that status carries sent only after the write landed (so
// that a reconcile retried after a 409 does not send them twice).
#pragma once

#include <cpprest/json.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "distbench/kube/kube_client.h"
#include "distbench/kube/rfc3339.h"

namespace distbench::kube {

// An Event about the object, sent once the status write lands.
struct StatusEvent {
  bool warning = false;
  std::string reason, message;
};

// An Event on `object`: `warning` false is Normal.
using EventSink = std::function<void(const web::json::value& object, bool warning,
                                     const std::string& reason, const std::string& message)>;

struct StatusContext {
  std::string key, ns, name;  // key: "namespace/name"
  std::string path;           // the object's URL
  std::string uid;
  int64_t generation = 0;
  web::json::value object;    // as read, then as last written
  web::json::value original;  // status as read (as last written)
  web::json::value status;    // status to write
  SystemTime now;
  std::string nowText;  // now, RFC 3339
  std::vector<StatusEvent> events;

  // Reads the object `key` names, at pathOf(namespace, name): false when it
  // does not exist. Sets status.observedGeneration.
  bool open(
      KubeClient& client, const std::string& key,
      const std::function<std::string(const std::string& ns, const std::string& name)>& pathOf);
  // Sets `now` (the reconcile's one clock reading) and nowText.
  void stamp(SystemTime at);
  // The object is being deleted.
  bool deleting() const;
  // Writes `status` when it differs from what was read. False on 409 (someone
  // wrote since the read: start over from a fresh one rather than overwrite
  // what they wrote); anything else the server answers is thrown.
  bool writeStatus(KubeClient& client);
  // The same, written even when unchanged.
  bool replaceStatus(KubeClient& client);
  // Sends `events` to `sink` (when set) and forgets them.
  void flushEvents(const EventSink& sink);
};

// "namespace/name" split; a key without a namespace is in "default".
std::pair<std::string, std::string> splitKey(const std::string& key);

}  // namespace distbench::kube
