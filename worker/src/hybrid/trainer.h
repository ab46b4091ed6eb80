// A trainer: the hybrid model (lookups on every PS shard, then the dense
// stack under distbench's DDP), the seed's training loop, per-epoch reports
// to the master.
#pragma once

#include <string>

#include "comm/rendezvous.h"
#include "common/worker_identity.h"
#include "distbench/api/benchmark_spec.h"
#include "hybrid/hybrid_metrics.h"

namespace distbench::worker {

struct TrainerOptions {
  std::string dumpStateDir;    // non-empty: write final dense parameters there
  bool progressLines = false;  // "@@distbench-progress ..." on stderr for distbench run
};

void runHybridTrainer(const WorkerIdentity& identity, const api::DistBenchmark& benchmark,
                      Rendezvous& rendezvous, HybridTrainerMetrics& metrics,
                      const TrainerOptions& options);

}  // namespace distbench::worker
