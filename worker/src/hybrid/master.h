// The master (rank 0): creates the embedding shards on the parameter servers,
// starts the trainers, gathers their epoch times, stops everyone in order,
// and produces the result table and report.
#pragma once

#include <string>
#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "distbench/worker/comm/process_group.h"
#include "distbench/worker/common/result_table.h"

namespace distbench::worker {

// Returns each trainer's measured epochs (warm-up excluded), trainer order.
std::vector<TrainerResult> runHybridMaster(const api::DistBenchmark& benchmark,
                                           ProcessGroup& global);

}  // namespace distbench::worker
