// The last lines of the ranks that failed a gang, kept. A gang restart
// deletes every pod of the gang and makes them again under the same names,
// so a failed rank's log would go with its pod; the termination message
// keeps one line. Before it deletes the gang (a restart, or a failed run
// whose cleanPodPolicy deletes pods), the operator reads each failed rank's
// last lines through the API server and keeps them in ConfigMap <name>-logs
// (api::rankLogsConfigMapName), one key per gang and rank, for `kubectl
// distbench logs NAME --gang N --rank R`. Pure: the reconciler does the
// reading and writing.
#pragma once

#include <cpprest/json.h>

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "distbench/operator/benchmarks/gang_state.h"

namespace distbench::op {

// What is kept of one failed rank's log: its last lines but progress
// lines, at most this much; read from the end of the log (rank_log_tail.h)
// with room for the progress lines among them.
inline constexpr std::size_t kFailedLogKeptLines = 100;
inline constexpr std::size_t kFailedLogKeptBytes = 16 * 1024;
inline constexpr std::size_t kFailedLogReadLines = 300;
inline constexpr std::size_t kFailedLogReadBytes = 64 * 1024;
// Ranks read per gang: the first to fail tell why; a gang of 64 that all
// failed on one peer's loss would say the same 64 times.
inline constexpr std::size_t kFailedLogsPerGang = 4;
// What <name>-logs holds at most (a ConfigMap holds 1 MiB): the oldest
// gangs' logs make room for the newest.
inline constexpr std::size_t kMaxKeptLogBytes = 512 * 1024;

// What is kept of `tail`, the end of a failed rank's log: its progress
// lines (api/progress_line.h) dropped, then the last kFailedLogKeptLines
// whole lines that fit kFailedLogKeptBytes; where the last line alone is
// longer, its end, after "…".
std::string keptLogText(const std::string& tail);

// The failed ranks of `gang` whose logs are read, in rank order: those
// whose container ended (a kubelet that still answers), at most
// kFailedLogsPerGang. A pod lost with its node has no log to give.
std::vector<const PodState*> ranksToKeepLogsOf(const GangState& gang);

// The ConfigMap's data once `added` (key -> log) is kept beside `existing`
// (the data as read; null when there is no ConfigMap yet): every key of
// `added`, then the existing keys of the newest gangs that still fit
// kMaxKeptLogBytes, and any key this operator did not write.
web::json::value keptRankLogs(const web::json::value& existing,
                              const std::map<std::string, std::string>& added);

}  // namespace distbench::op
