// The envelope of the run's report (docs/report-schema.md) that every kind
// shares; each kind adds its series: hybrid/hybrid_report.h, ddp_results.h,
// collectives_benchmark.h (addCollectivesResults).
#pragma once

#include "distbench/api/benchmark_spec.h"
#include "distbench/report/report.h"

namespace distbench::worker {

// Versions, backend, device, host, topology, seed, config: no series yet.
report::Report reportEnvelope(const api::DistBenchmark& benchmark, const report::Host& host);

}  // namespace distbench::worker
