// What `distbench run --links/--slow` adds to the master's report once the
// ranks are gone: the `local` block (what the ranks could not see about
// themselves: their emulated links, CPU caps and the counters of both), and
// the attribution again, since only with that block can it name a slow link
// (the master computed it without).
#pragma once

#include <string>

namespace distbench::cli {

// Rewrites the report at `reportPath` with `localJson` as its `local` block
// and the attribution recomputed. Returns the attribution's footer lines
// (report::formatAttributionFooter). Throws std::runtime_error naming the
// file if it cannot be read, parsed or written.
std::string addLocalBlock(const std::string& reportPath, const std::string& localJson);

}  // namespace distbench::cli
