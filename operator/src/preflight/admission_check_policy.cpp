#include "distbench/operator/preflight/admission_check_policy.h"

#include "distbench/api/spec_error.h"
#include "distbench/kube/json_fields.h"
#include "distbench/operator/common/crd_names.h"
#include "distbench/operator/common/status_conditions.h"

namespace distbench::op {
namespace {

using kube::fieldOf;
using kube::stringField;
using web::json::value;

CheckPolicy unusable(std::string reason, std::string error) {
  return {std::nullopt, std::move(reason), std::move(error)};
}

std::string conditionField(const value& admissionCheck, const char* field) {
  const value* status = fieldOf(admissionCheck, "status");
  const value* active = status != nullptr ? conditionOf(*status, kActiveCondition) : nullptr;
  return active != nullptr ? stringField(*active, field) : "";
}

}  // namespace

bool isPreflightCheck(const value& admissionCheck) {
  return stringField(admissionCheck, "spec", "controllerName") == api::kPreflightControllerName;
}

CheckPolicy checkPolicy(const value& admissionCheck, const PolicyGetter& getPolicy) {
  const value* spec = fieldOf(admissionCheck, "spec");
  const value* ref = spec != nullptr ? fieldOf(*spec, "parameters") : nullptr;
  if (ref == nullptr) {
    return unusable("BadParametersRef",
                    "missing parameters reference: spec.parameters must name a " +
                        std::string(api::kPreflightPolicyKind) + " (apiGroup " + kGroup + ")");
  }
  const std::string group = stringField(*ref, "apiGroup"), kind = stringField(*ref, "kind"),
                    name = stringField(*ref, "name");
  if (group != kGroup) {
    return unusable("BadParametersRef", "wrong group \"" + group + "\", expecting \"" + kGroup +
                                            "\": bad parameters reference");
  }
  if (kind != api::kPreflightPolicyKind) {
    return unusable("BadParametersRef", "wrong kind \"" + kind + "\", expecting \"" +
                                            api::kPreflightPolicyKind +
                                            "\": bad parameters reference");
  }
  if (name.empty()) return unusable("BadParametersRef", "empty name: bad parameters reference");
  const std::optional<value> object = getPolicy(name);
  if (!object) {
    return unusable("PolicyNotFound", std::string(api::kPreflightPolicyKind) + " " + name +
                                          " not found (kubectl get " +
                                          api::kPreflightPolicyPlural + ")");
  }
  try {
    return {api::parseDistBenchPreflightPolicy(object->serialize()), "", ""};
  } catch (const api::SpecError& e) {
    return unusable("InvalidPolicy",
                    std::string(api::kPreflightPolicyKind) + " " + name + " is invalid: " + e.what());
  }
}

std::optional<value> activeConditionUpdate(const value& admissionCheck, const CheckPolicy& policy,
                                           const std::string& nowRfc3339) {
  const bool active = policy.policy.has_value();
  const std::string status = active ? "True" : "False";
  const std::string reason = active ? "Active" : policy.reason;
  const std::string message =
      statusMessage(active ? "The admission check is active" : policy.error);
  if (conditionField(admissionCheck, "status") == status &&
      conditionField(admissionCheck, "reason") == reason &&
      conditionField(admissionCheck, "message") == message) {
    return std::nullopt;
  }
  value updated = admissionCheck;
  value& st = updated["status"];
  if (!st.is_object()) st = value::object();
  setConditionStatus(st, kActiveCondition, status, reason, message, nowRfc3339,
                     kube::intField(admissionCheck.at("metadata"), "generation"));
  return updated;
}

}  // namespace distbench::op
