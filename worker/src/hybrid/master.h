// The master (rank 0): creates the embedding shards on the parameter servers,
// starts the trainers, gathers their epoch times, stops everyone in order,
// and produces the result table and report.
#pragma once

#include <string>
#include <vector>

#include "comm/process_group.h"
#include "common/result_table.h"
#include "distbench/api/benchmark_spec.h"

namespace distbench::worker {

// Returns each trainer's measured epochs (warm-up excluded), trainer order.
std::vector<TrainerResult> runHybridMaster(const api::DistBenchmark& benchmark,
                                           ProcessGroup& global);

}  // namespace distbench::worker
