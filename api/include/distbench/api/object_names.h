// The names of the objects a DistBenchmark becomes, in one place: the
// renderer, the operator and the validation of metadata.name all use these.
// Nothing parses a name back: a child carries its benchmark in the
// distbench.io/benchmark label.
//
// Every name is "<benchmark>-<suffix>", and no suffix is the tail of another
// one of the same kind ("-master" vs "-workers" for Services; pod suffixes
// end in "-<index>" after distinct role words), so two benchmarks in one
// namespace can never derive the same name: benchmark "a-master" has
// Services "a-master-workers" and "a-master-master", never "a-master".
#pragma once

#include <optional>
#include <string>

#include "distbench/api/role.h"

namespace distbench::api {

std::string configMapName(const std::string& benchmark);      // <b>-config
std::string workersServiceName(const std::string& benchmark);  // <b>-workers (headless)
std::string masterServiceName(const std::string& benchmark);   // <b>-master (ClusterIP)
std::string networkPolicyName(const std::string& benchmark);   // <b>-gang
std::string runKeySecretName(const std::string& benchmark);    // <b>-run-key
// <b>-report: the run's JSON report, which the operator stores after
// Succeeded and keeps after clean-up, under kReportKey.
std::string reportConfigMapName(const std::string& benchmark);
inline constexpr const char* kReportKey = "report.json";
// <b>-logs: the last lines of each rank that failed a gang, kept by the
// operator when the gang restarts or the run fails, under
// gang-<N>.<rank label>.log (failed_rank_logs.h in the operator).
std::string rankLogsConfigMapName(const std::string& benchmark);
// "gang-3.trainer1.log"
std::string rankLogKey(int gang, const std::string& rankLabel);
struct RankLogKey {
  int gang = 0;
  std::string rankLabel;
};
// What a key names; nothing for a key not made by rankLogKey.
std::optional<RankLogKey> parseRankLogKey(const std::string& key);
// <b>-master-0, <b>-ps-<i>, <b>-trainer-<i>
std::string podName(const std::string& benchmark, Role role, int roleIndex);
// What every pod name of the benchmark starts with ("<b>-"): a cache
// lookup's prefix, never proof of ownership (labels and controller
// references decide that).
std::string podNamePrefix(const std::string& benchmark);

}  // namespace distbench::api
