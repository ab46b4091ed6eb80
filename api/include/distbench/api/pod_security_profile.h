// Which spec.podTemplates.<role> security overrides leave the Pod Security
// Standards "restricted" profile: runAsNonRoot false, runAsUser 0, an
// Unconfined seccomp profile, allowPrivilegeEscalation true, an added
// capability other than NET_BIND_SERVICE, a drop list without ALL. They
// parse and validate (a cluster admin may want them), but the operator
// refuses a benchmark that has any unless it was started with
// --allow-privileged-overrides, and `distbench validate` says so unless given
// the same flag: one tenant's benchmark must not get root or kernel
// privileges on a shared node just by asking.
#pragma once

#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "distbench/api/spec_error.h"

namespace distbench::api {

// The flag, of the operator and of `distbench validate`, that accepts them.
inline constexpr const char* kAllowPrivilegedOverridesFlag = "--allow-privileged-overrides";

// One error per override that breaks the restricted profile, naming it.
std::vector<FieldError> restrictedProfileViolations(const DistBenchmark& benchmark);
// Throws SpecError listing restrictedProfileViolations(), if any.
void requireRestrictedProfile(const DistBenchmark& benchmark);

}  // namespace distbench::api
