#include "distbench/operator/controller.h"

#include "distbench/kube/json_fields.h"
#include "distbench/operator/benchmark_label.h"
#include "distbench/operator/cache_trim.h"
#include "distbench/operator/timed_reconcile.h"

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

Controller::Controller(kube::KubeClient& client, ControllerOptions options)
    : client_(client), options_(std::move(options)), queue_(options_.queue) {
  const std::string& ns = options_.ns;
  const kube::Informer::Options& o = options_.informer;
  benchmarks_ = std::make_unique<kube::Informer>(
      client_, kube::groupPath(kGroup, kVersion, ns, kPlural), "", withTransform(o, trimBenchmark));
  pods_ = std::make_unique<kube::Informer>(client_, kube::corePath(ns, "pods"), kBenchmarkLabel,
                                           withTransform(o, trimPod));
  services_ = std::make_unique<kube::Informer>(client_, kube::corePath(ns, "services"),
                                               kBenchmarkLabel, withTransform(o, trimMetadata));
  configMaps_ = std::make_unique<kube::Informer>(client_, kube::corePath(ns, "configmaps"),
                                                 kBenchmarkLabel, withTransform(o, trimConfigMap));
  networkPolicies_ = std::make_unique<kube::Informer>(
      client_, kube::groupPath("networking.k8s.io", "v1", ns, "networkpolicies"), kBenchmarkLabel,
      withTransform(o, trimMetadata));
  benchmarks_->onChange([this](const std::string& key, const value&, bool) { queue_.add(key); });
  auto owner = [this](const std::string& key, const value& object, bool) {
    enqueueOwner(key, object);
  };
  pods_->onChange(owner);
  services_->onChange(owner);
  configMaps_->onChange(owner);
  networkPolicies_->onChange(owner);

  Reconciler::Options r;
  r.onEvent = options_.onEvent;
  r.createParallelism = options_.createParallelism;
  r.createFailureTimeout = options_.createFailureTimeout;
  r.reportFetchTimeout = options_.reportFetchTimeout;
  r.suspectNodes = options_.suspectNodes;
  r.cluster = options_.cluster;
  reconciler_ = std::make_unique<Reconciler>(client_, *pods_, *services_, *configMaps_,
                                             *networkPolicies_, r);
}

Controller::~Controller() { stop(); }

void Controller::enqueueOwner(const std::string& key, const value& object) {
  const std::string ns = key.substr(0, key.find('/'));
  const value& meta = object.at("metadata");
  // The controlling DistBenchmark first (as client-go's GetControllerOf):
  // a child whose label was removed reaches a filtered watch as DELETED,
  // without the label, and its benchmark must still hear of it.
  if (meta.has_field("ownerReferences")) {
    for (const value& ref : meta.at("ownerReferences").as_array()) {
      if (ref.has_field("controller") && ref.at("controller").as_bool() &&
          kube::stringField(ref, "kind") == "DistBenchmark") {
        queue_.add(ns + "/" + kube::stringField(ref, "name"));
        return;
      }
    }
  }
  // A child an earlier benchmark of that name left (or one made by hand)
  // still carries the label.
  if (meta.has_field("labels") && meta.at("labels").has_field(kBenchmarkLabel))
    queue_.add(ns + "/" + meta.at("labels").at(kBenchmarkLabel).as_string());
}

void Controller::startInformers() {
  for (kube::Informer* i :
       {benchmarks_.get(), pods_.get(), services_.get(), configMaps_.get(), networkPolicies_.get()})
    i->start();
}

bool Controller::waitForSync(std::chrono::milliseconds timeout) const {
  return kube::waitForSync(
      {benchmarks_.get(), pods_.get(), services_.get(), configMaps_.get(), networkPolicies_.get()},
      timeout);
}

bool Controller::synced() const {
  return benchmarks_->hasSynced() && pods_->hasSynced() && services_->hasSynced() &&
         configMaps_->hasSynced() && networkPolicies_->hasSynced();
}

void Controller::startWorkers() {
  std::lock_guard<std::mutex> lock(workersMutex_);
  if (stopped_) return;
  if (pool_) {
    for (const value& b : benchmarks_->list()) queue_.add(kube::objectKey(b));
    pool_->start();
    return;
  }
  kube::WorkerPool::Options o;
  o.workers = options_.workers;
  o.mayReconcile = options_.mayReconcile;
  auto reconcile = timedReconcile(
      [this](const std::string& key) { return reconciler_->reconcile(key); },
      options_.onReconciled);
  pool_ = std::make_unique<kube::WorkerPool>(queue_, reconcile, o);
  pool_->start();
}

bool Controller::pauseWorkers(std::chrono::steady_clock::duration timeout) {
  std::lock_guard<std::mutex> lock(workersMutex_);
  return !pool_ || stopped_ || pool_->pause(timeout);
}

bool Controller::stop(std::chrono::steady_clock::duration timeout) {
  std::lock_guard<std::mutex> lock(workersMutex_);
  if (stopped_) return true;
  stopped_ = true;
  bool drained = true;
  if (pool_) {
    drained = pool_->stop(timeout);
  } else {
    queue_.shutDown();
  }
  for (kube::Informer* i :
       {benchmarks_.get(), pods_.get(), services_.get(), configMaps_.get(), networkPolicies_.get()})
    i->stop();
  return drained;
}

std::map<std::string, int> Controller::phaseCounts() const {
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
