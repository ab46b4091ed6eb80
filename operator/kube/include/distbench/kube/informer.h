// A list-then-watch cache of one collection, as client-go's reflector and
// informer: list (keeping the list's resourceVersion), replace the cache,
// then watch from that version with bookmarks, so no change between the list
// and the watch is missed. A watch the server ends is resumed from the last
// version seen; a version too old to resume from (410 Gone, as HTTP status
// or as an ERROR event) forces a re-list; any other failure (connection
// refused while the API server restarts, a stream that breaks) is retried
// with exponential backoff. The reconciler reads the cache instead of the
// API server, and hears of each change through onChange().
#pragma once

#include <cpprest/json.h>
#include <pplx/pplxtasks.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "distbench/kube/kube_client.h"

namespace distbench::kube {

// The cache key: "namespace/name", or "name" for cluster-scoped objects
// (client-go's MetaNamespaceKeyFunc), so keys match the work queue's.
std::string objectKey(const web::json::value& object);
// An ERROR event carrying a Status with code 410: the version the watch asked
// for is gone from the server's history, and only a re-list can catch up.
bool isGoneEvent(const WatchEvent& event);

class Informer {
 public:
  // `object` is the object as it now is, or, with `deleted`, as it last
  // was (the watch's DELETED event, or the cache when a re-list found it
  // gone), as client-go and kube-rs hand it over: a handler never has to
  // work out from the name what a deleted object belonged to.
  using Handler = std::function<void(const std::string& key, const web::json::value& object,
                                     bool deleted)>;

  struct Options {
    // Long enough not to churn, short enough that a silently dead
    // connection is noticed; the server ends the watch after this.
    int watchTimeoutSeconds = 60;
    std::chrono::milliseconds backoffBase{100};
    std::chrono::milliseconds backoffMax{5000};
    // Trims each object before it is cached and handed to handlers (as
    // client-go's SetTransform): the operator keeps only the fields it
    // reads, so a thousand cached pods cost kilobytes each, not tens.
    // Must keep metadata.name, namespace and resourceVersion.
    std::function<void(web::json::value&)> transform;
  };

  // `path`: a collection, e.g. corePath("ns", "pods"), or corePath("", "pods")
  // for all namespaces. `labelSelector`, when not empty, filters both list and
  // watch (e.g. a label key alone: objects that carry the label).
  // `client` must outlive the informer.
  Informer(KubeClient& client, std::string path, std::string labelSelector = "");
  Informer(KubeClient& client, std::string path, std::string labelSelector, Options options);
  ~Informer();  // stop()

  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  // Handlers run on the informer's thread, one change at a time, in order,
  // outside the cache's lock (they may call get() and list()). Register
  // before start() to hear of the first list.
  void onChange(Handler handler);

  // Starts the thread; once only.
  void start();
  // Cancels the watch, ends any backoff wait and joins. A list in flight
  // finishes first (bounded by the client's request timeout). Idempotent.
  void stop();

  std::optional<web::json::value> get(const std::string& key) const;
  std::vector<web::json::value> list() const;
  // The cached objects whose key starts with `keyPrefix` (e.g. "ns/" or
  // "ns/name-") and that `keep` accepts: only those are copied, so a
  // reconcile of one benchmark does not copy every pod in the cluster.
  // `keep` runs under the cache's lock and must not call back in.
  std::vector<web::json::value> select(
      const std::string& keyPrefix,
      const std::function<bool(const web::json::value&)>& keep) const;
  // The first list is done and its handlers ran: the cache reflects the
  // server at some version.
  bool hasSynced() const;
  // False when the timeout passed (or the informer stopped) before sync.
  bool waitForSync(std::chrono::milliseconds timeout) const;

  // Watches that ended for any reason other than stop() and were followed
  // by another watch or a re-list (server timeouts, failures, 410s).
  int64_t watchRestarts() const { return watchRestarts_.load(); }
  // Lists after the first one: each a recovery from 410 Gone.
  int64_t relists() const { return relists_.load(); }

  // The next watch starts from `resourceVersion` instead of the last seen,
  // so a test can ask for a version the server no longer has.
  void forceResourceVersionForTest(std::string resourceVersion);

 private:
  void run();
  // Lists and replaces the cache; throws KubeApiError.
  void relist();
  // One watch from the last version. True when it ended in 410 Gone.
  bool watchOnce(bool* sawEvent);
  // Applies ADDED/MODIFIED/DELETED/BOOKMARK; throws on a non-410 ERROR event.
  void apply(const WatchEvent& event);
  struct Change {
    std::string key;
    web::json::value object;
    bool deleted;
  };
  void notify(const std::vector<Change>& changes);
  // Sleeps, unless stop() comes first; false when stopping.
  bool sleepFor(std::chrono::milliseconds delay);

  KubeClient& client_;
  const std::string path_;  // with the label selector as query, if any
  const Options options_;

  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::map<std::string, web::json::value> cache_;
  std::string resourceVersion_;
  std::string forcedResourceVersion_;
  bool synced_ = false;
  bool stopping_ = false;
  std::vector<Handler> handlers_;

  pplx::cancellation_token_source cancel_;
  std::thread thread_;
  std::atomic<int64_t> watchRestarts_{0};
  std::atomic<int64_t> relists_{0};
};

// Every informer of `informers` has synced, all within one `timeout`;
// false when the time ran out (or one stopped) first.
bool waitForSync(const std::vector<const Informer*>& informers, std::chrono::milliseconds timeout);

}  // namespace distbench::kube
