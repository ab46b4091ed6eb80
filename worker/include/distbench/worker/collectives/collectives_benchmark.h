// The Collectives kind's two roles. The ranks (role trainer, though they
// train nothing) run the whole plan (every op, dtype and size) over the
// `trainers` group (Gloo or NCCL, on their device), then hand their
// per-iteration times to the master through the store; the master combines them (an op is done when its
// slowest rank is), prints the table and returns the results for the
// report. A sweep can run for minutes, so liveness comes from RunControl's
// heartbeats.
#pragma once

#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "distbench/report/report.h"
#include "distbench/worker/collectives/collective_results.h"

namespace distbench::worker {

class Rendezvous;
class CollectivesRankMetrics;

// `progressLines`: cases done (progress_reporter.h).
void runCollectivesRank(Rendezvous& rendezvous, const api::DistBenchmark& benchmark,
                        CollectivesRankMetrics& metrics, bool progressLines = false);

std::vector<CollectiveResult> runCollectivesMaster(Rendezvous& rendezvous,
                                                   const api::DistBenchmark& benchmark);

// A series per op, dtype and size, and results.ops.
void addCollectivesResults(report::Report& report, int ranks,
                           const std::vector<CollectiveResult>& results);

}  // namespace distbench::worker
