#include "controller.h"

#include <regex>

namespace distbench::op {

using web::json::value;

Controller::Controller(KubeClient& client, ControllerOptions options)
    : client_(client), options_(std::move(options)), queue_(options_.queue) {
  const std::string& ns = options_.ns;
  benchmarks_ = std::make_unique<Informer>(client_, groupPath(kGroup, kVersion, ns, kPlural), "",
                                           options_.informer);
  pods_ = std::make_unique<Informer>(client_, corePath(ns, "pods"), kBenchmarkLabel,
                                     options_.informer);
  services_ = std::make_unique<Informer>(client_, corePath(ns, "services"), kBenchmarkLabel,
                                         options_.informer);
  configMaps_ = std::make_unique<Informer>(client_, corePath(ns, "configmaps"), kBenchmarkLabel,
                                           options_.informer);
  benchmarks_->onChange([this](const std::string& key, const value*) { queue_.add(key); });
  auto owner = [this](const std::string& key, const value* object) { enqueueOwner(key, object); };
  pods_->onChange(owner);
  services_->onChange(owner);
  configMaps_->onChange(owner);

  Reconciler::Options r;
  r.onEvent = options_.onEvent;
  r.createParallelism = options_.createParallelism;
  reconciler_ = std::make_unique<Reconciler>(client_, *pods_, *services_, *configMaps_, r);
}

Controller::~Controller() { stop(); }

void Controller::enqueueOwner(const std::string& key, const value* object) {
  const auto slash = key.find('/');
  const std::string ns = key.substr(0, slash);
  if (object != nullptr) {
    const value& meta = object->at("metadata");
    if (meta.has_field("labels") && meta.at("labels").has_field(kBenchmarkLabel))
      queue_.add(ns + "/" + meta.at("labels").at(kBenchmarkLabel).as_string());
    return;
  }
  // A deletion comes without the object, so the owner is read off the name
  // the renderer gave it. "a-master" may be benchmark a's master Service or
  // benchmark a-master's headless one: both are queued, and reconciling a
  // benchmark that does not exist only removes children labelled with it.
  const std::string name = key.substr(slash + 1);
  static const std::regex suffix("^(.+)-(master-0|ps-[0-9]+|trainer-[0-9]+|config|master)$");
  std::smatch m;
  if (std::regex_match(name, m, suffix)) queue_.add(ns + "/" + m[1].str());
  if (m.empty() || m[2] == "master") queue_.add(ns + "/" + name);
}

void Controller::startInformers() {
  for (Informer* i : {benchmarks_.get(), pods_.get(), services_.get(), configMaps_.get()})
    i->start();
}

bool Controller::waitForSync(std::chrono::milliseconds timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (const Informer* i : {benchmarks_.get(), pods_.get(), services_.get(), configMaps_.get()}) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (!i->waitForSync(std::max(left, std::chrono::milliseconds(0)))) return false;
  }
  return true;
}

bool Controller::synced() const {
  return benchmarks_->hasSynced() && pods_->hasSynced() && services_->hasSynced() &&
         configMaps_->hasSynced();
}

void Controller::startWorkers() {
  WorkerPool::Options o;
  o.workers = options_.workers;
  auto reconcile = [this](const std::string& key) {
    const auto start = std::chrono::steady_clock::now();
    try {
      Result r = reconciler_->reconcile(key);
      if (options_.onReconciled)
        options_.onReconciled(key, std::chrono::steady_clock::now() - start, r, nullptr);
      return r;
    } catch (const std::exception& e) {
      const std::string error = e.what();
      if (options_.onReconciled)
        options_.onReconciled(key, std::chrono::steady_clock::now() - start, Result{}, &error);
      throw;
    }
  };
  pool_ = std::make_unique<WorkerPool>(queue_, reconcile, o);
  pool_->start();
  workersStarted_ = true;
}

bool Controller::stop(std::chrono::steady_clock::duration timeout) {
  if (stopped_) return true;
  stopped_ = true;
  bool drained = true;
  if (pool_) {
    drained = pool_->stop(timeout);
  } else {
    queue_.shutDown();
  }
  for (Informer* i : {benchmarks_.get(), pods_.get(), services_.get(), configMaps_.get()}) i->stop();
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
