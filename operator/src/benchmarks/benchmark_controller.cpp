#include "distbench/operator/benchmarks/benchmark_controller.h"

#include "distbench/kube/json_fields.h"
#include "distbench/operator/common/cache_trim.h"
#include "distbench/operator/common/crd_names.h"
#include "distbench/operator/common/labels.h"

namespace distbench::op {

using web::json::value;

namespace {

// What the caches keep (cache_trim.h): of the children only metadata, pod
// status and Service addresses.
void trimPod(value& pod) {
  trimMetadata(pod);
  if (!pod.has_field("spec")) return;
  // The rendered containers (env, command, mounts) are the bulk of a pod,
  // and the reconciler never reads them back; only what a failure's reason
  // names (gang_state.h): each container's image and memory limit.
  const value& spec = pod.at("spec");
  value kept = value::object();
  if (spec.has_field("nodeName")) kept["nodeName"] = spec.at("nodeName");
  if (spec.has_field("containers") && spec.at("containers").is_array()) {
    value containers = value::array();
    for (const value& c : spec.at("containers").as_array()) {
      value k = value::object();
      for (const char* field : {"name", "image"})
        if (c.has_field(field)) k[field] = c.at(field);
      if (const value* r = kube::fieldOf(c, "resources"); r != nullptr) {
        if (const value* l = kube::fieldOf(*r, "limits"); l != nullptr && l->has_field("memory"))
          k["resources"]["limits"]["memory"] = l->at("memory");
      }
      containers[containers.size()] = k;
    }
    kept["containers"] = containers;
  }
  pod["spec"] = kept;
}

// Reconciles read the resource fresh; the cache serves keys and the
// phase gauge.
void trimBenchmark(value& b) {
  trimMetadata(b);
  if (b.has_field("spec")) b.erase("spec");
  if (b.has_field("status")) {
    value status = value::object();
    if (b.at("status").has_field("phase")) status["phase"] = b.at("status").at("phase");
    b["status"] = status;
  }
}

void trimConfigMap(value& cm) {
  trimMetadata(cm);
  if (cm.has_field("data")) cm.erase("data");
}

}  // namespace

BenchmarkController::BenchmarkController(kube::KubeClient& client,
                                         BenchmarkControllerOptions options)
    : kube::Controller(client, options.runtime) {
  const std::string& ns = options.ns;
  const kube::Informer::Options& o = options.informer;
  auto owned = [&](std::string path, std::function<void(value&)> trim) {
    return &own(std::move(path), kLabelBenchmark, withTransform(o, std::move(trim)), api::kKind,
                kLabelBenchmark);
  };
  benchmarks_ =
      &watch(kube::groupPath(kGroup, kVersion, ns, kPlural), "", withTransform(o, trimBenchmark));
  pods_ = owned(kube::corePath(ns, "pods"), trimPod);
  services_ = owned(kube::corePath(ns, "services"), trimMetadata);
  configMaps_ = owned(kube::corePath(ns, "configmaps"), trimConfigMap);
  networkPolicies_ =
      owned(kube::groupPath("networking.k8s.io", "v1", ns, "networkpolicies"), trimMetadata);

  Reconciler::Options r;
  r.onEvent = options.onEvent;
  r.createParallelism = options.createParallelism;
  r.createFailureTimeout = options.createFailureTimeout;
  r.reportFetchTimeout = options.reportFetchTimeout;
  r.progressInterval = options.progressInterval;
  r.suspectNodes = options.suspectNodes;
  r.cluster = options.cluster;
  reconciler_ =
      std::make_unique<Reconciler>(client, *pods_, *services_, *configMaps_, *networkPolicies_, r);
  reconcileWith([this](const std::string& key) { return reconciler_->reconcile(key); });
}

BenchmarkController::~BenchmarkController() { stop(); }

std::map<std::string, int> BenchmarkController::phaseCounts() const {
  std::map<std::string, int> counts;
  for (const value& b : benchmarks_->list()) {
    std::string phase = "Pending";
    if (b.has_field("status") && b.at("status").has_field("phase"))
      phase = b.at("status").at("phase").as_string();
    ++counts[phase];
  }
  return counts;
}

}  // namespace distbench::op
