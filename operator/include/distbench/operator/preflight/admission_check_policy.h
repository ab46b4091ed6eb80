// Kueue AdmissionChecks as the preflight gate reads them: whether one is
// ours (spec.controllerName), the DistBenchPreflightPolicy its
// spec.parameters name, and the Active condition that says whether the
// gate can evaluate it (a ClusterQueue whose check is not Active admits
// nothing). Pure: the policy comes from a lookup the caller gives.
#pragma once

#include <cpprest/json.h>

#include <functional>
#include <optional>
#include <string>

#include "distbench/api/preflight_policy.h"

namespace distbench::op {

inline constexpr const char* kAdmissionChecksPlural = "admissionchecks";
inline constexpr const char* kActiveCondition = "Active";

bool isPreflightCheck(const web::json::value& admissionCheck);

// The policy, or why there is none to use: `reason` BadParametersRef
// (Kueue's word for a parameters reference of the wrong group or kind, or
// none), PolicyNotFound or InvalidPolicy, and `error` for a person.
struct CheckPolicy {
  std::optional<api::DistBenchPreflightPolicy> policy;
  std::string reason;
  std::string error;
};

using PolicyGetter = std::function<std::optional<web::json::value>(const std::string& name)>;
CheckPolicy checkPolicy(const web::json::value& admissionCheck, const PolicyGetter& getPolicy);

// The AdmissionCheck to write back through its status subresource when its
// Active condition must change (status, reason or message, as Kueue's own
// check controllers write it); nullopt when it already says so.
std::optional<web::json::value> activeConditionUpdate(const web::json::value& admissionCheck,
                                                      const CheckPolicy& policy,
                                                      const std::string& nowRfc3339);

}  // namespace distbench::op
