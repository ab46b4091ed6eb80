// The hybrid benchmark's report: the envelope every kind shares
// (common/report_builder.h) and a series per trainer and the pooled `All`.
#pragma once

#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "distbench/report/report.h"
#include "distbench/worker/common/result_table.h"

namespace distbench::worker {

// One series per trainer and the pooled `All`, as the result table has them;
// in `results`, each trainer's step phases (TrainerResult::phases).
report::Report hybridReport(const api::DistBenchmark& benchmark,
                            const std::vector<TrainerResult>& trainers, const report::Host& host);

}  // namespace distbench::worker
