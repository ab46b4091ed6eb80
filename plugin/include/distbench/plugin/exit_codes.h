// kubectl distbench's exit statuses. The report commands (report, diff,
// predict) keep distbench's (cli/exit_codes.h: 0, 1 a regression over
// --threshold, 2); the cluster's own problems are 4, so a script tells a
// regression from a cluster it cannot reach.
#pragma once

namespace distbench::plugin {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;  // the run Failed
inline constexpr int kExitUsage = 2;   // bad command line or spec; nothing done
inline constexpr int kExitRegression =
    3;                                  // run --wait: Succeeded, and regressed against its baseline
inline constexpr int kExitCluster = 4;  // kubectl missing, CRDs missing, RBAC, not found
inline constexpr int kExitTimeout = 5;  // run --wait --timeout passed, the run goes on

}  // namespace distbench::plugin
