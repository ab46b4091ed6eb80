// The compact result summary the master leaves as its container's
// termination message, which the operator copies into the resource's status
// (`status.results`). Kubernetes keeps at most 4096 bytes of it, so rows are
// dropped from the end (and `truncated` set) rather than cut mid-JSON.
#pragma once

#include <cstddef>
#include <string>

#include "distbench/report/report.h"

namespace distbench::worker {

inline constexpr size_t kTerminationMessageLimit = 4096;

// {"kind":"DDP","p50":"0.376s","rows":[{"group":..,"row":..,"p50":..,"p75":..,
//  "p90":..,"p95":..,"perSecond":..,"unit":"examples"}, ...],"truncated":false}
// `p50` is the headline the printer column shows: the pooled `All` row of
// the hybrid kind, the largest row of the first DDP model, the largest
// allreduce of the first allreduce dtype (else of the first op) of
// collectives. `perSecond` is the rate the tables print: the series' work
// per sample over its p50.
std::string resultSummaryJson(const report::Report& report, size_t limit = kTerminationMessageLimit);

// Writes the summary where Kubernetes reads termination messages: the file
// in $DISTBENCH_TERMINATION_LOG, else /dev/termination-log when it exists
// (every container has one; a local run has none and writes nothing).
// Returns the path written, or "".
std::string writeTerminationMessage(const report::Report& report);

}  // namespace distbench::worker
