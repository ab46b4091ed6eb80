// The master (rank 0): creates the embedding shards on the parameter servers,
// starts the trainers, gathers their epoch times, stops everyone in order,
// and produces the result table and report.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "distbench/worker/comm/process_group.h"
#include "distbench/worker/common/result_table.h"
#include "distbench/worker/hybrid/hybrid_report.h"
#include "distbench/worker/hybrid/ps_service_stats.h"

namespace distbench::worker {

struct HybridMasterOutput {
  std::vector<TrainerResult> trainers;  // measured epochs (warm-up excluded), trainer order
  HybridTraffic traffic;                // per trainer and per parameter server
};

// `readStats(p)`, if set, fetches parameter server p's stats once it has
// answered the Shutdown (ParameterServerOptions::publishStats).
HybridMasterOutput runHybridMaster(
    const api::DistBenchmark& benchmark, ProcessGroup& global,
    const std::function<ParameterServerStats(int)>& readStats = {});

}  // namespace distbench::worker
