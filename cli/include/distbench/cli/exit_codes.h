// distbench's exit statuses (docs/cli.md). 2 always means nothing was run
// or compared.
#pragma once

namespace distbench::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;  // the run started and did not succeed
// `diff --threshold` found a significant slowdown: like a failed run, the
// command did its work and the answer is "no".
inline constexpr int kExitRegression = 1;
inline constexpr int kExitUsage = 2;  // bad command line, spec, report or worker path
// Interrupted runs exit 128 + the signal number, as a shell reports them.

}  // namespace distbench::cli
