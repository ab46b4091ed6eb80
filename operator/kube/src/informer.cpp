#include "distbench/kube/informer.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "distbench/kube/json_fields.h"

namespace distbench::kube {

using web::json::value;

namespace {


}  // namespace

std::string objectKey(const value& object) {
  const std::string ns = metadataField(object, "namespace");
  const std::string name = metadataField(object, "name");
  return ns.empty() ? name : ns + "/" + name;
}

bool isGoneEvent(const WatchEvent& event) {
  if (event.type != "ERROR" || !event.object.is_object()) return false;
  const value& status = event.object;
  if (status.has_field("code") && status.at("code").is_integer())
    return status.at("code").as_integer() == 410;
  // A Status without a code still says Expired (too old resource version).
  return stringField(status, "reason") == "Expired" || stringField(status, "reason") == "Gone";
}

Informer::Informer(KubeClient& client, std::string path, std::string labelSelector)
    : Informer(client, std::move(path), std::move(labelSelector), Options()) {}

Informer::Informer(KubeClient& client, std::string path, std::string labelSelector, Options options)
    : client_(client),
      path_(labelSelector.empty() ? path : path + "?labelSelector=" + queryEscape(labelSelector)),
      options_(options) {}

Informer::~Informer() { stop(); }

void Informer::onChange(Handler handler) {
  std::lock_guard<std::mutex> lock(mutex_);
  handlers_.push_back(std::move(handler));
}

void Informer::start() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (thread_.joinable() || stopping_) return;
  thread_ = std::thread([this] { run(); });
}

void Informer::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  cancel_.cancel();
  changed_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

std::optional<value> Informer::get(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = cache_.find(key);
  if (it == cache_.end()) return std::nullopt;
  return it->second;
}

std::vector<value> Informer::list() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<value> out;
  out.reserve(cache_.size());
  for (const auto& [key, object] : cache_) out.push_back(object);
  return out;
}

std::vector<value> Informer::select(const std::string& keyPrefix,
                                   const std::function<bool(const value&)>& keep) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<value> out;
  for (auto it = cache_.lower_bound(keyPrefix);
       it != cache_.end() && it->first.compare(0, keyPrefix.size(), keyPrefix) == 0; ++it) {
    if (keep(it->second)) out.push_back(it->second);
  }
  return out;
}

bool Informer::hasSynced() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return synced_;
}

bool Informer::waitForSync(std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait_for(lock, timeout, [&] { return synced_ || stopping_; });
  return synced_;
}

void Informer::forceResourceVersionForTest(std::string resourceVersion) {
  std::lock_guard<std::mutex> lock(mutex_);
  forcedResourceVersion_ = std::move(resourceVersion);
}

bool Informer::sleepFor(std::chrono::milliseconds delay) {
  std::unique_lock<std::mutex> lock(mutex_);
  return !changed_.wait_for(lock, delay, [&] { return stopping_; });
}

void Informer::notify(const std::vector<Change>& changes) {
  if (changes.empty()) return;
  std::vector<Handler> handlers;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    handlers = handlers_;
  }
  for (const Change& change : changes) {
    for (const Handler& handler : handlers) {
      const std::string& key = change.key;
      try {
        handler(key, change.object, change.deleted);
      } catch (const std::exception& e) {
        // A handler's bug must not kill the informer's thread (and with it
        // every later update); say so and go on.
        std::fprintf(stderr, "informer %s: handler failed for %s: %s\n", path_.c_str(), key.c_str(),
                     e.what());
      }
    }
  }
}

void Informer::relist() {
  const value result = client_.get(path_);
  std::map<std::string, value> fresh;
  if (result.has_field("items") && result.at("items").is_array()) {
    for (const value& item : result.at("items").as_array()) {
      value kept = item;
      if (options_.transform) options_.transform(kept);
      fresh.emplace(objectKey(item), std::move(kept));
    }
  }
  std::vector<Change> changes;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // Objects deleted while no watch was running: only the difference
    // between the lists tells of them.
    for (const auto& [key, object] : cache_) {
      if (!fresh.count(key)) changes.push_back({key, object, true});
    }
    // Every listed object, changed or not: a handler that missed events (or
    // whose reconcile failed) gets a fresh look at each, as a resync would.
    for (const auto& [key, object] : fresh) changes.push_back({key, object, false});
    cache_ = std::move(fresh);
    resourceVersion_ = metadataField(result, "resourceVersion");
  }
  notify(changes);
  {
    // Synced only once handlers heard of the first list: a caller that waits
    // for sync (before starting workers, say) then knows they did.
    std::lock_guard<std::mutex> lock(mutex_);
    synced_ = true;
  }
  changed_.notify_all();
}

void Informer::apply(const WatchEvent& event) {
  std::vector<Change> changes;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::string rv = metadataField(event.object, "resourceVersion");
    if (event.type == "BOOKMARK") {
      // Only the version: the server has sent everything up to it.
      if (!rv.empty()) resourceVersion_ = rv;
      return;
    }
    const std::string key = objectKey(event.object);
    if (event.type == "ADDED" || event.type == "MODIFIED") {
      value kept = event.object;
      if (options_.transform) options_.transform(kept);
      changes.push_back({key, kept, false});
      cache_[key] = std::move(kept);
    } else if (event.type == "DELETED") {
      value last = event.object;
      if (options_.transform) options_.transform(last);
      cache_.erase(key);
      changes.push_back({key, std::move(last), true});
    } else {
      return;  // a type this client does not know: skip it, keep the version
    }
    if (!rv.empty()) resourceVersion_ = rv;
  }
  notify(changes);
}

bool Informer::watchOnce(bool* sawEvent) {
  std::string from;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    from = forcedResourceVersion_.empty() ? resourceVersion_ : forcedResourceVersion_;
    forcedResourceVersion_.clear();
  }
  bool gone = false;
  std::string error;
  try {
    client_.watch(
        path_, from, options_.watchTimeoutSeconds,
        [&](const WatchEvent& event) {
          *sawEvent = true;
          if (isGoneEvent(event)) {
            gone = true;
            return false;
          }
          if (event.type == "ERROR") {
            error = "ERROR event: " + stringField(event.object, "message");
            return false;
          }
          apply(event);
          return true;
        },
        cancel_.get_token());
  } catch (const KubeApiError& e) {
    if (e.gone()) return true;
    throw;
  }
  if (!error.empty()) throw KubeApiError(0, "", "WATCH " + path_ + ": " + error);
  return gone;
}

void Informer::run() {
  auto backoff = options_.backoffBase;
  auto failed = [&](const std::exception& e, const char* what) {
    std::fprintf(stderr, "informer %s: %s failed, retrying in %lld ms: %s\n", path_.c_str(), what,
                 static_cast<long long>(backoff.count()), e.what());
    const bool go = sleepFor(backoff);
    backoff = std::min(backoff * 2, options_.backoffMax);
    return go;
  };
  bool needList = true;
  bool listedOnce = false;
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_) return;
    }
    if (needList) {
      try {
        relist();
      } catch (const std::exception& e) {
        if (!failed(e, "list")) return;
        continue;
      }
      if (listedOnce) ++relists_;
      listedOnce = true;
      needList = false;
    }
    bool sawEvent = false;
    const auto watchStart = std::chrono::steady_clock::now();
    try {
      needList = watchOnce(&sawEvent);
      if (sawEvent || std::chrono::steady_clock::now() - watchStart > std::chrono::seconds(1)) {
        // Connected and ended by the server (or by 410): the connection is
        // healthy, so the next failure starts from a short wait again.
        backoff = options_.backoffBase;
      } else if (!needList) {
        // Ended at once with nothing said (a server going down closes its
        // streams): wait as after a failure, or this loop would spin.
        if (!sleepFor(backoff)) return;
        backoff = std::min(backoff * 2, options_.backoffMax);
      }
    } catch (const std::exception& e) {
      if (cancel_.get_token().is_canceled()) return;
      if (sawEvent) backoff = options_.backoffBase;
      if (!failed(e, "watch")) return;
    }
    if (cancel_.get_token().is_canceled()) return;
    ++watchRestarts_;
  }
}

bool waitForSync(const std::vector<const Informer*>& informers, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (const Informer* i : informers) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (!i->waitForSync(std::max(left, std::chrono::milliseconds(0)))) return false;
  }
  return true;
}

}  // namespace distbench::kube
