// The floor the operator is measured against: a client that makes exactly
// the objects the operator makes for a DistBenchmark (the same builders of
// desired_objects.h, the same shared REST client), as fast as the API
// server takes them and with nothing else: no watch to wait for, no read
// of the resource, no status. Its one ordering is the real dependency:
// the pods carry the master Service's ClusterIP, so they go out after the
// five shared children, which go out together.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "distbench/kube/kube_client.h"
#include "distbench/kube/parallel_for.h"

namespace distbench::bench {

class BareClient {
 public:
  // `ns` must be a namespace no operator watches. `client` must outlive it.
  // `parallelism` and `helpers`: the operator's createParallelism and
  // requestHelpers (reconciler.h), so that both send as much at once.
  BareClient(kube::KubeClient& client, std::string ns, int parallelism, int helpers);

  // POSTs the DistBenchmark `name` (the default spec), then its children.
  void create(const std::string& name);
  // Deletes the resource and every child create() made (there is no
  // garbage collector in the bench's cluster).
  void remove(const std::string& name);

 private:
  kube::KubeClient& client_;
  std::string ns_;
  int parallelism_;
  kube::HelperBudget helpers_;
  std::mutex mutex_;
  std::map<std::string, std::vector<std::string>> made_;  // name -> children's paths
};

}  // namespace distbench::bench
