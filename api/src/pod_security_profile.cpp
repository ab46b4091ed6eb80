#include "distbench/api/pod_security_profile.h"

#include <algorithm>
#include <string>

namespace distbench::api {
namespace {

const std::string kWhy = std::string(" is forbidden by Pod Security \"restricted\"; allowed only when the "
                                     "operator (or distbench validate) is given ") +
                         kAllowPrivilegedOverridesFlag;

void checkRole(const std::string& field, const PodTemplate& t, std::vector<FieldError>& errors) {
  const PodSecurityOverrides& p = t.podSecurityContext;
  const std::string pp = field + ".podSecurityContext.";
  if (p.runAsNonRoot == false) errors.push_back({pp + "runAsNonRoot", "false" + kWhy});
  if (p.runAsUser == 0) errors.push_back({pp + "runAsUser", "0 (root)" + kWhy});
  if (p.seccompProfile && p.seccompProfile->type == "Unconfined") {
    errors.push_back({pp + "seccompProfile.type", "Unconfined" + kWhy});
  }
  const ContainerSecurityOverrides& c = t.securityContext;
  const std::string cp = field + ".securityContext.";
  if (c.allowPrivilegeEscalation == true) {
    errors.push_back({cp + "allowPrivilegeEscalation", "true" + kWhy});
  }
  if (c.capabilitiesAdd) {
    for (std::size_t i = 0; i < c.capabilitiesAdd->size(); ++i) {
      const std::string& cap = (*c.capabilitiesAdd)[i];
      if (cap != "NET_BIND_SERVICE") {
        errors.push_back({cp + "capabilities.add[" + std::to_string(i) + "]",
                          cap + " (only NET_BIND_SERVICE may be added)" + kWhy});
      }
    }
  }
  if (c.capabilitiesDrop && std::find(c.capabilitiesDrop->begin(), c.capabilitiesDrop->end(),
                                      "ALL") == c.capabilitiesDrop->end()) {
    errors.push_back({cp + "capabilities.drop", "a list without ALL" + kWhy});
  }
}

}  // namespace

std::vector<FieldError> restrictedProfileViolations(const DistBenchmark& benchmark) {
  std::vector<FieldError> errors;
  const PodTemplates& t = benchmark.spec.podTemplates;
  checkRole("spec.podTemplates.master", t.master, errors);
  checkRole("spec.podTemplates.parameterServer", t.parameterServer, errors);
  checkRole("spec.podTemplates.trainer", t.trainer, errors);
  return errors;
}

void requireRestrictedProfile(const DistBenchmark& benchmark) {
  std::vector<FieldError> errors = restrictedProfileViolations(benchmark);
  if (!errors.empty()) throw SpecError(std::move(errors));
}

}  // namespace distbench::api
