// The one-line "why" of a finished run: the master's result summary carries
// it as `bottleneck` (report attribution, docs/report-schema.md#attribution),
// the operator shows it as status.bottleneck and says it once as an Event.
#pragma once

#include <cpprest/json.h>

#include <optional>
#include <string>

namespace distbench::op {

// The Event's reason: a run that completed with a bottleneck named.
inline constexpr const char* kEventBottleneck = "Bottleneck";

// The summary's `bottleneck`, bounded as every status message is
// (bounded_message.h); nullopt when the summary has none (an older worker,
// an image of the user's) or it is not a non-empty string.
std::optional<std::string> bottleneckOf(const web::json::value& resultSummary);

}  // namespace distbench::op
