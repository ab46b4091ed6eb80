// A report's group and row names as a schedule's status (lastRun.rows) and
// its /metrics labels carry them: bounded. The names are the report's, so
// the user's; unbounded, one report could make the schedule's status more
// than the API server takes, and a label value more than a scrape should
// carry. The CRD's maxLength and docs/metrics.md say the same bound.
#pragma once

#include <cstddef>
#include <string>

namespace distbench::op {

// Bytes a group or row name keeps (UTF-8, so at most as many characters).
inline constexpr std::size_t kMaxRowNameBytes = 128;

// `name` if it fits kMaxRowNameBytes; else its first bytes (never inside a
// UTF-8 character), "~" and 8 hex digits of a hash of the whole name, in
// kMaxRowNameBytes: two long names that share their beginning stay two
// rows (two series), and a name is cut the same way by every replica.
std::string boundedRowName(const std::string& name);

}  // namespace distbench::op
