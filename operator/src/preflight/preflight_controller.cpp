#include "distbench/operator/preflight/preflight_controller.h"

#include <algorithm>

#include "distbench/kube/json_fields.h"
#include "distbench/kube/rfc3339.h"
#include "distbench/operator/common/benchmark_object.h"
#include "distbench/operator/common/crd_names.h"
#include "distbench/operator/preflight/admission_check_policy.h"
#include "distbench/operator/preflight/kueue_workload.h"

namespace distbench::op {
namespace {

using kube::fieldOf;
using kube::stringField;
using web::json::value;

std::string admissionChecksPath() {
  return std::string(kKueueApiPrefix) + "/" + kAdmissionChecksPlural;
}
std::string policiesPath() {
  return "/apis/" + std::string(kGroup) + "/" + kVersion + "/" + api::kPreflightPolicyPlural;
}

// The policy an AdmissionCheck's parameters name; "" for none.
std::string policyNameOf(const value& admissionCheck) {
  const value* spec = fieldOf(admissionCheck, "spec");
  const value* ref = spec != nullptr ? fieldOf(*spec, "parameters") : nullptr;
  return ref != nullptr ? stringField(*ref, "name") : "";
}

// The Workloads in `cache` with an entry for one of `checks`.
std::vector<std::string> workloadsWith(const kube::Informer& cache,
                                       const std::vector<std::string>& checks) {
  std::vector<std::string> keys;
  for (const value& w : cache.list()) {
    for (const AdmissionCheckEntry& e : readWorkload(w).checks) {
      if (std::find(checks.begin(), checks.end(), e.name) != checks.end()) {
        keys.push_back(kube::objectKey(w));
        break;
      }
    }
  }
  return keys;
}

// The AdmissionChecks of the gate in `cache` whose parameters name `policy`.
std::vector<std::string> checksNaming(const kube::Informer& cache, const std::string& policy) {
  std::vector<std::string> names;
  for (const value& c : cache.list()) {
    if (isPreflightCheck(c) && policyNameOf(c) == policy) names.push_back(kube::objectKey(c));
  }
  return names;
}

}  // namespace

PreflightController::PreflightController(kube::KubeClient& client,
                                         PreflightControllerOptions options)
    : kube::Controller(client, options.runtime) {
  watch(kueueWorkloadsPath(options.ns), "", options.informer);
  runs_ = &own(benchmarksPath(options.ns),
               api::kPreflightWorkloadUidLabel, options.informer, "Workload");
  admissionChecks_ = &follow(admissionChecksPath(), "", options.informer, [this](const value& c) {
    return isPreflightCheck(c) ? workloadsWith(primary(), {kube::objectKey(c)})
                               : std::vector<std::string>{};
  });
  policies_ = &follow(policiesPath(), "", options.informer, [this](const value& p) {
    return workloadsWith(primary(), checksNaming(*admissionChecks_, kube::objectKey(p)));
  });
  reconciler_ = std::make_unique<PreflightReconciler>(client, *admissionChecks_, *policies_,
                                                      *runs_, options.reconciler);
  reconcileWith([this](const std::string& key) { return reconciler_->reconcile(key); });
}

PreflightController::~PreflightController() { stop(); }

AdmissionCheckController::AdmissionCheckController(kube::KubeClient& client,
                                                   AdmissionCheckControllerOptions options)
    : kube::Controller(client, options.runtime), client_(client), options_(std::move(options)) {
  watch(admissionChecksPath(), "", options_.informer);
  policies_ = &follow(policiesPath(), "", options_.informer, [this](const value& p) {
    return checksNaming(primary(), kube::objectKey(p));
  });
  reconcileWith([this](const std::string& name) { return reconcile(name); });
}

AdmissionCheckController::~AdmissionCheckController() { stop(); }

kube::Result AdmissionCheckController::reconcile(const std::string& name) {
  const std::string path = admissionChecksPath() + "/" + name;
  value check;
  try {
    check = client_.get(path);
  } catch (const kube::KubeApiError& e) {
    if (e.notFound()) return kube::Result::awaitChange();
    throw;
  }
  if (!isPreflightCheck(check)) return kube::Result::awaitChange();
  const CheckPolicy policy =
      checkPolicy(check, [this](const std::string& p) { return policies_->get(p); });
  const std::optional<value> update =
      activeConditionUpdate(check, policy, kube::formatRfc3339(options_.now()));
  if (!update) return kube::Result::awaitChange();
  try {
    client_.replace(path + "/status", *update);
  } catch (const kube::KubeApiError& e) {
    if (e.conflict()) return kube::Result::retry();
    if (e.notFound()) return kube::Result::awaitChange();
    throw;
  }
  return kube::Result::awaitChange();
}

std::string preflightMissingResources(kube::KubeClient& client) {
  std::string missing;
  const std::pair<std::string, std::string> wanted[] = {
      {kueueWorkloadsPath(""), "workloads.kueue.x-k8s.io/v1beta1"},
      {admissionChecksPath(), "admissionchecks.kueue.x-k8s.io/v1beta1"},
      {policiesPath(), std::string(api::kPreflightPolicyPlural) + ".distbench.io"},
  };
  for (const auto& [path, what] : wanted) {
    if (!kube::collectionServed(client, path)) missing += (missing.empty() ? "" : ", ") + what;
  }
  return missing;
}

}  // namespace distbench::op
