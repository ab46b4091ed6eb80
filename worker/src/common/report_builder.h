// Builds the run's report (docs/report-schema.md) from what the master
// gathered: the envelope every kind shares, and the hybrid benchmark's
// series. The DDP and Collectives kinds add theirs in ddp_results.h and
// collectives_benchmark.h (addCollectivesResults).
#pragma once

#include <string>
#include <vector>

#include "common/result_table.h"
#include "distbench/api/benchmark_spec.h"
#include "distbench/report/report.h"

namespace distbench::worker {

// Versions, backend, device, host, topology, seed, config: no series yet.
report::Report reportEnvelope(const api::DistBenchmark& benchmark, const report::Host& host);

// One series per trainer and the pooled `All`, as the result table has them;
// in `results`, each trainer's step phases (TrainerResult::phases).
report::Report hybridReport(const api::DistBenchmark& benchmark,
                            const std::vector<TrainerResult>& trainers, const report::Host& host);

}  // namespace distbench::worker
