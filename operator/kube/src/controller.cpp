#include "distbench/kube/controller.h"

#include "distbench/kube/json_fields.h"

namespace distbench::kube {

using web::json::value;

Controller::Controller(KubeClient& client, ControllerOptions options)
    : client_(client), options_(std::move(options)), queue_(options_.queue) {}

Controller::~Controller() { stop(); }

const Informer& Controller::watch(std::string path, std::string labelSelector,
                                  Informer::Options options) {
  informers_.insert(informers_.begin(),
                    std::make_unique<Informer>(client_, std::move(path), std::move(labelSelector),
                                               std::move(options)));
  informers_.front()->onChange(
      [this](const std::string& key, const value&, bool) { queue_.add(key); });
  return *informers_.front();
}

const Informer& Controller::own(std::string path, std::string labelSelector,
                                Informer::Options options, std::string ownerKind,
                                std::string ownerLabel) {
  informers_.push_back(std::make_unique<Informer>(client_, std::move(path),
                                                  std::move(labelSelector), std::move(options)));
  informers_.back()->onChange(
      [this, ownerKind, ownerLabel](const std::string& key, const value& object, bool) {
        enqueueOwner(key, object, ownerKind, ownerLabel);
      });
  return *informers_.back();
}

const Informer& Controller::follow(std::string path, std::string labelSelector,
                                   Informer::Options options, KeysOf keysOf) {
  informers_.push_back(std::make_unique<Informer>(client_, std::move(path),
                                                  std::move(labelSelector), std::move(options)));
  if (keysOf) {
    informers_.back()->onChange(
        [this, keysOf = std::move(keysOf)](const std::string&, const value& object, bool) {
          for (const std::string& key : keysOf(object)) queue_.add(key);
        });
  }
  return *informers_.back();
}

void Controller::reconcileWith(Reconcile reconcile) { reconcile_ = std::move(reconcile); }

void Controller::enqueueOwner(const std::string& key, const value& object,
                              const std::string& ownerKind, const std::string& ownerLabel) {
  const std::string ns = key.substr(0, key.find('/'));
  const value& meta = object.at("metadata");
  if (const value* refs = fieldOf(meta, "ownerReferences"); refs != nullptr && refs->is_array()) {
    for (const value& ref : refs->as_array()) {
      const value* controller = fieldOf(ref, "controller");
      if (controller != nullptr && controller->is_boolean() && controller->as_bool() &&
          stringField(ref, "kind") == ownerKind) {
        queue_.add(ns + "/" + stringField(ref, "name"));
        return;
      }
    }
  }
  if (ownerLabel.empty()) return;
  if (const value* labels = fieldOf(meta, "labels");
      labels != nullptr && labels->has_field(ownerLabel))
    queue_.add(ns + "/" + labels->at(ownerLabel).as_string());
}

void Controller::startInformers() {
  for (const auto& i : informers_) i->start();
}

bool Controller::waitForSync(std::chrono::milliseconds timeout) const {
  std::vector<const Informer*> all;
  for (const auto& i : informers_) all.push_back(i.get());
  return kube::waitForSync(all, timeout);
}

bool Controller::synced() const {
  for (const auto& i : informers_)
    if (!i->hasSynced()) return false;
  return true;
}

void Controller::startWorkers() {
  std::lock_guard<std::mutex> lock(workersMutex_);
  if (stopped_) return;
  if (pool_) {
    enqueueAll();
    pool_->start();
    return;
  }
  WorkerPool::Options o;
  o.workers = options_.workers;
  o.mayReconcile = options_.mayReconcile;
  pool_ =
      std::make_unique<WorkerPool>(queue_, timedReconcile(reconcile_, options_.onReconciled), o);
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
  for (const auto& i : informers_) i->stop();
  return drained;
}

void Controller::enqueueAll() {
  for (const value& o : primary().list()) queue_.add(objectKey(o));
}

}  // namespace distbench::kube
