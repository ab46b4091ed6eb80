// The DistBenchmark controller: the runtime's generic controller
// (kube/controller.h) wired with DistBenchmarks as its primary kind, the
// kinds a benchmark owns (pods, Services, ConfigMaps, NetworkPolicies, all
// filtered by the distbench.io/benchmark label) and the Reconciler. What
// each cache keeps of an object is decided here (the trims).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "distbench/kube/controller.h"
#include "distbench/kube/informer.h"
#include "distbench/kube/kube_client.h"
#include "distbench/kube/timed_reconcile.h"
#include "distbench/kube/work_queue.h"
#include "distbench/operator/benchmarks/reconciler.h"
#include "distbench/operator/benchmarks/suspect_node_marks.h"

namespace distbench::op {

struct BenchmarkControllerOptions {
  // Workers, queue, onReconciled and mayReconcile: the runtime's own.
  kube::ControllerOptions runtime;
  std::string ns;  // empty: every namespace
  kube::Informer::Options informer;
  kube::EventSink onEvent;
  int createParallelism = 24;  // Reconciler::Options
  std::chrono::seconds createFailureTimeout{60};
  std::chrono::seconds reportFetchTimeout{60};  // Reconciler::Options
  std::chrono::seconds progressInterval{10};    // Reconciler::Options
  SuspectNodeAction suspectNodes = SuspectNodeAction::None;  // Reconciler::Options
  ClusterOptions cluster;

  BenchmarkControllerOptions() { runtime.workers = 4; }
};

// Its lifecycle (informers, workers, pause, stop) is kube::Controller's.
class BenchmarkController : public kube::Controller {
 public:
  // `client` must outlive the controller.
  BenchmarkController(kube::KubeClient& client, BenchmarkControllerOptions options);
  ~BenchmarkController();  // stop(), before the reconciler goes
  BenchmarkController(const BenchmarkController&) = delete;
  BenchmarkController& operator=(const BenchmarkController&) = delete;

  const kube::Informer& benchmarks() const { return *benchmarks_; }
  const kube::Informer& pods() const { return *pods_; }
  const kube::Informer& services() const { return *services_; }
  const kube::Informer& configMaps() const { return *configMaps_; }
  const kube::Informer& networkPolicies() const { return *networkPolicies_; }
  // DistBenchmarks in the cache by status.phase ("Pending" when unset).
  std::map<std::string, int> phaseCounts() const;

 private:
  const kube::Informer* benchmarks_;
  const kube::Informer* pods_;
  const kube::Informer* services_;
  const kube::Informer* configMaps_;
  const kube::Informer* networkPolicies_;
  std::unique_ptr<Reconciler> reconciler_;
};

}  // namespace distbench::op
