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

// Which of a report's series the summary leads with: each kind's rule, in
// its KindEntry (common/benchmark_kind.h). Called only on a report with at
// least one series; returns an index into report.series.
using HeadlineRule = size_t (*)(const report::Report& report);

// {"kind":"DDP","p50":"0.376s","bottleneck":"...","rows":[{"group":..,"row":..,"p50":..,"p75":..,
//  "p90":..,"p95":..,"perSecond":..,"unit":"examples"}, ...],"truncated":false}
// `p50` is the headline the printer column shows, the series `headline`
// picks. `perSecond` is the rate the tables print: the series' work per
// sample over its p50. `bottleneck` is the summary of the report's
// attribution (report/attribution.h), where it has one.
std::string resultSummaryJson(const report::Report& report, HeadlineRule headline,
                              size_t limit = kTerminationMessageLimit);

// Writes the summary where Kubernetes reads termination messages: the file
// in $DISTBENCH_TERMINATION_LOG, else /dev/termination-log when it exists
// (every container has one; a local run has none and writes nothing).
// Returns the path written, or "".
std::string writeTerminationMessage(const report::Report& report, HeadlineRule headline);

}  // namespace distbench::worker
