#include "distbench/kube/status_context.h"

#include "distbench/kube/json_fields.h"

namespace distbench::kube {

using web::json::value;

std::pair<std::string, std::string> splitKey(const std::string& key) {
  const auto slash = key.find('/');
  if (slash == std::string::npos) return {"default", key};
  return {key.substr(0, slash), key.substr(slash + 1)};
}

bool StatusContext::open(
    KubeClient& client, const std::string& objectKey,
    const std::function<std::string(const std::string& ns, const std::string& name)>& pathOf) {
  key = objectKey;
  std::tie(ns, name) = splitKey(objectKey);
  path = pathOf(ns, name);
  try {
    object = client.get(path);
  } catch (const KubeApiError& e) {
    if (!e.notFound()) throw;
    return false;
  }
  const value& meta = object.at("metadata");
  uid = stringField(meta, "uid");
  generation = intField(meta, "generation", 0);
  original = object.has_field("status") ? object.at("status") : value::object();
  status = original;
  status["observedGeneration"] = value::number(generation);
  return true;
}

void StatusContext::stamp(SystemTime at) {
  now = at;
  nowText = formatRfc3339(now);
}

bool StatusContext::deleting() const {
  return object.at("metadata").has_field("deletionTimestamp");
}

bool StatusContext::writeStatus(KubeClient& client) {
  if (status == original) return true;
  return replaceStatus(client);
}

bool StatusContext::replaceStatus(KubeClient& client) {
  value body = object;
  body["status"] = status;
  try {
    object = client.replace(path + "/status", body);
  } catch (const KubeApiError& e) {
    if (e.conflict()) return false;
    throw;
  }
  original = status;
  return true;
}

void StatusContext::flushEvents(const EventSink& sink) {
  for (const StatusEvent& e : events)
    if (sink) sink(object, e.warning, e.reason, e.message);
  events.clear();
}

}  // namespace distbench::kube
