#include "distbench/operator/schedule_controller.h"

#include "distbench/api/schedule_spec.h"
#include "distbench/kube/json_fields.h"
#include "distbench/operator/cache_trim.h"
#include "distbench/operator/timed_reconcile.h"

namespace distbench::op {

using web::json::value;

namespace {

// The reconciler reads the schedule fresh; the cache serves keys and the
// metrics (schedule_metrics.h), which read the status and these fields.
void trimSchedule(value& s) {
  trimMetadata(s);
  if (!s.has_field("spec")) return;
  const value& spec = s.at("spec");
  value kept = value::object();
  for (const char* field : {"schedule", "timeZone", "suspend"})
    if (spec.has_field(field)) kept[field] = spec.at(field);
  s["spec"] = kept;
}

// A run's spec is never read back; its status says how it went.
void trimRun(value& b) {
  trimMetadata(b);
  if (b.has_field("spec")) b.erase("spec");
  if (b.has_field("status")) {
    value& status = b["status"];
    for (const char* heavy : {"master", "parameterServers", "trainers"})
      if (status.has_field(heavy)) status.erase(heavy);
    if (status.has_field("results")) {
      value results = value::object();
      if (status.at("results").has_field("p50")) results["p50"] = status.at("results").at("p50");
      status["results"] = results;
    }
  }
}

}  // namespace

bool schedulesServed(kube::KubeClient& client, const std::string& ns) {
  // A list of one rather than the discovery document: it needs only the
  // right the controller holds anyway (list), and answers 404 exactly when
  // the resource is not served.
  try {
    client.get(kube::groupPath(kGroup, kVersion, ns, kSchedulePlural) + "?limit=1");
    return true;
  } catch (const kube::KubeApiError& e) {
    if (e.notFound()) return false;
    throw;
  }
}

ScheduleController::ScheduleController(kube::KubeClient& client, ScheduleControllerOptions options)
    : client_(client), options_(std::move(options)), queue_(options_.queue) {
  const std::string& ns = options_.ns;
  schedules_ = std::make_unique<kube::Informer>(
      client_, kube::groupPath(kGroup, kVersion, ns, kSchedulePlural), "",
      withTransform(options_.informer, trimSchedule));
  runs_ = std::make_unique<kube::Informer>(client_, kube::groupPath(kGroup, kVersion, ns, kPlural),
                                           api::kScheduleLabel,
                                           withTransform(options_.informer, trimRun));
  schedules_->onChange([this](const std::string& key, const value&, bool) { queue_.add(key); });
  runs_->onChange([this](const std::string& key, const value& run, bool) {
    const std::string ns = key.substr(0, key.find('/'));
    const value* refs = kube::fieldOf(run.at("metadata"), "ownerReferences");
    if (refs == nullptr || !refs->is_array()) return;
    for (const value& ref : refs->as_array()) {
      const value* controller = kube::fieldOf(ref, "controller");
      if (controller != nullptr && controller->is_boolean() && controller->as_bool() &&
          kube::stringField(ref, "kind") == api::kScheduleKind) {
        queue_.add(ns + "/" + kube::stringField(ref, "name"));
        return;
      }
    }
  });
  reconciler_ = std::make_unique<ScheduleReconciler>(client_, *runs_, options_.reconciler);
}

ScheduleController::~ScheduleController() { stop(); }

void ScheduleController::startInformers() {
  schedules_->start();
  runs_->start();
}

bool ScheduleController::waitForSync(std::chrono::milliseconds timeout) const {
  return kube::waitForSync({schedules_.get(), runs_.get()}, timeout);
}

bool ScheduleController::synced() const { return schedules_->hasSynced() && runs_->hasSynced(); }

void ScheduleController::startWorkers() {
  std::lock_guard<std::mutex> lock(workersMutex_);
  if (stopped_) return;
  if (pool_) {
    enqueueAll();
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

bool ScheduleController::pauseWorkers(std::chrono::steady_clock::duration timeout) {
  std::lock_guard<std::mutex> lock(workersMutex_);
  return !pool_ || stopped_ || pool_->pause(timeout);
}

bool ScheduleController::stop(std::chrono::steady_clock::duration timeout) {
  std::lock_guard<std::mutex> lock(workersMutex_);
  if (stopped_) return true;
  stopped_ = true;
  bool drained = true;
  if (pool_) {
    drained = pool_->stop(timeout);
  } else {
    queue_.shutDown();
  }
  schedules_->stop();
  runs_->stop();
  return drained;
}

void ScheduleController::enqueueAll() {
  for (const value& s : schedules_->list()) queue_.add(kube::objectKey(s));
}

}  // namespace distbench::op
