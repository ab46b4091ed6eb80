// status.progress of a Running benchmark: how far trainer 0 has got, as its
// progress lines say (api/progress_line.h). The operator reads a bounded
// tail of trainer 0's log through the API server every --progress-interval,
// as it reads the master's log for the report, so neither the gang's
// NetworkPolicy nor the worker's metrics port need admit it, and writes
// status.progress when the line changed. Pure: the reconciler does the
// reading and writing.
#pragma once

#include <cpprest/json.h>

#include <cstddef>
#include <optional>
#include <string>

#include "distbench/api/progress_line.h"

namespace distbench::op {

// How much of trainer 0's log one read takes (rank_log_tail.h): a progress
// line is printed at most once a second, so the last one is within these
// lines unless the trainer logs a great deal else; then progress is not
// updated until it is.
inline constexpr std::size_t kProgressLogTailLines = 200;
inline constexpr std::size_t kProgressLogLimitBytes = 64 * 1024;

// status.progress for `progress`, seen in gang `gang` at `observedTime`
// (RFC 3339): {unit, done, total, gang, observedTime}.
web::json::value progressStatus(const api::Progress& progress, int gang,
                                const std::string& observedTime);

// Whether status.progress (absent, or as progressStatus wrote it) should be
// replaced by `progress` read in gang `gang`: not when it already says as
// much (its observedTime stays when the line was first seen), nor when it
// says more of the same count in the same gang (a read that found an older
// line never takes progress back).
bool progressMoved(const web::json::value& status, const api::Progress& progress, int gang);

}  // namespace distbench::op
