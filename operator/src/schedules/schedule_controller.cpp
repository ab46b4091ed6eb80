#include "distbench/operator/schedules/schedule_controller.h"

#include "distbench/api/schedule_spec.h"
#include "distbench/kube/json_fields.h"
#include "distbench/operator/common/cache_trim.h"
#include "distbench/operator/common/crd_names.h"

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
  return kube::collectionServed(client, kube::groupPath(kGroup, kVersion, ns, kSchedulePlural));
}

ScheduleController::ScheduleController(kube::KubeClient& client, ScheduleControllerOptions options)
    : kube::Controller(client, options.runtime) {
  const std::string& ns = options.ns;
  schedules_ = &watch(kube::groupPath(kGroup, kVersion, ns, kSchedulePlural), "",
                      withTransform(options.informer, trimSchedule));
  runs_ = &own(kube::groupPath(kGroup, kVersion, ns, kPlural), api::kScheduleLabel,
               withTransform(options.informer, trimRun), api::kScheduleKind);
  reconciler_ = std::make_unique<ScheduleReconciler>(client, *runs_, options.reconciler);
  reconcileWith([this](const std::string& key) { return reconciler_->reconcile(key); });
}

ScheduleController::~ScheduleController() { stop(); }

}  // namespace distbench::op
