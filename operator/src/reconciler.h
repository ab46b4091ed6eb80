// One DistBenchmark's reconcile: from the resource (read fresh from the API
// server, so decisions never rest on a status older than our last write)
// and the cached children, create what is missing, follow the gang, apply
// the run policy, and write status. Every step is idempotent, so a reconcile
// interrupted anywhere (crash, lost leadership, 409) is simply run again.
//
// Order of effects, so that a crash between two of them never leads astray:
//  - children are created from the spec and the gang number in status;
//  - a decision that changes the gang (restart) or ends the run is written
//    to status first; pods are deleted after the write succeeded;
//  - pods of an older gang are deleted, and the new gang created only once
//    they are gone (pod names are stable, so old and new never mix).
#pragma once

#include <cpprest/json.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "gang_state.h"
#include "informer.h"
#include "kube_client.h"
#include "status_conditions.h"
#include "worker_pool.h"

namespace distbench::op {

inline constexpr const char* kGroup = "distbench.io";
inline constexpr const char* kVersion = "v1alpha1";
inline constexpr const char* kPlural = "distbenchmarks";

class Reconciler {
 public:
  // An Event on the resource: `warning` false is Normal.
  using EventSink = std::function<void(const web::json::value& object, bool warning,
                                       const std::string& reason, const std::string& message)>;

  struct Options {
    EventSink onEvent;
    std::function<SystemTime()> now = [] { return std::chrono::system_clock::now(); };
    // Concurrent pod creates per reconcile: a 17-pod gang goes up in a few
    // round trips instead of 17.
    int createParallelism = 8;
  };

  // The informers cache the children (pods, Services, ConfigMaps carrying
  // kBenchmarkLabel) and must outlive the reconciler.
  Reconciler(KubeClient& client, const Informer& pods, const Informer& services,
             const Informer& configMaps, Options options);

  // `key`: "namespace/name". Throws KubeApiError (retried with backoff).
  Result reconcile(const std::string& key);

 private:
  struct Context;

  Result reconcileLive(Context& ctx);
  // Deletes the children of a benchmark that no longer exists (whatever the
  // garbage collector has not yet removed).
  void deleteOrphans(const std::string& ns, const std::string& name);
  // Creates `object` at `collection` unless the cache has it; AlreadyExists
  // is success. Returns the object as the server has it (or the cache).
  web::json::value ensure(const Informer& cache, const std::string& collection,
                          const web::json::value& object);
  std::string ensureMasterService(Context& ctx);
  void createPods(const std::vector<web::json::value>& pods, const std::string& ns);
  std::vector<web::json::value> ownedPods(const Context& ctx) const;
  void deletePods(const std::vector<web::json::value>& pods, bool onlyUnfinished);
  // Pods, Services and ConfigMap of a finished run, by cleanPodPolicy.
  void cleanUp(Context& ctx);
  Result finished(Context& ctx);
  // Writes ctx.status if it differs from what the server has. False on 409.
  bool writeStatus(Context& ctx);
  void event(const Context& ctx, bool warning, const std::string& reason,
             const std::string& message) const;

  KubeClient& client_;
  const Informer& pods_;
  const Informer& services_;
  const Informer& configMaps_;
  Options options_;
};

}  // namespace distbench::op
