// The last line of defence for a status write: JSON has no infinity or NaN,
// and cpprest writes them as `inf`/`nan`, which the API server refuses as
// malformed, on every retry. A run whose status cannot be written never
// ends: no clean-up, no TTL. What reads numbers from outside (a termination
// message, a report) refuses bad ones itself, naming them; this catches
// whatever slips past.
#pragma once

#include <cpprest/json.h>

#include <optional>
#include <string>
#include <vector>

#include "distbench/kube/status_context.h"
#include "distbench/operator/common/status_conditions.h"

namespace distbench::op {

// Replaces every number in `v` that is not finite with null; returns the
// paths it replaced ("results.p50", "rows[2].p95"), in document order.
std::vector<std::string> nullNonFiniteNumbers(web::json::value& v);

// nullNonFiniteNumbers on a status about to be written; when it replaced
// any, the Warning Event (StatusNumbersDropped) that names them. Both
// reconcilers call it before every status write.
std::optional<kube::StatusEvent> dropNonFiniteStatusNumbers(web::json::value& status);

}  // namespace distbench::op
