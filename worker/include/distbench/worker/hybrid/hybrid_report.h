// The hybrid benchmark's report: the envelope every kind shares
// (common/report_builder.h) and a series per trainer and the pooled `All`.
#pragma once

#include <string>
#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "distbench/report/report.h"
#include "distbench/worker/common/result_table.h"
#include "distbench/worker/hybrid/ps_service_stats.h"

namespace distbench::worker {

// One trainer's bytes per training step, over its measured epochs.
struct TrainerTraffic {
  double bytesSentPerStep = 0;      // to all parameter servers, on the wire
  double bytesReceivedPerStep = 0;  // from all parameter servers
  double denseGradientBytes = 0;    // through the dense allreduce
};

struct ParameterServerResult {
  std::string name;  // "PS0"
  int rank = 0;      // global rank
  ParameterServerStats stats;
};

struct HybridTraffic {
  std::vector<TrainerTraffic> trainers;  // trainer order; empty: not measured
  std::vector<ParameterServerResult> parameterServers;
};

// One series per trainer and the pooled `All`, as the result table has them;
// in `results`, each trainer's step phases (TrainerResult::phases) and
// bytes per step, and each parameter server's service times and bytes.
report::Report hybridReport(const api::DistBenchmark& benchmark,
                            const std::vector<TrainerResult>& trainers, const report::Host& host,
                            const HybridTraffic& traffic = {});

}  // namespace distbench::worker
