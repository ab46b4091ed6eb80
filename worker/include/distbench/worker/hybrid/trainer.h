// A trainer: the hybrid model (lookups on every PS shard, then the dense
// stack under distbench's DDP), the seed's training loop, per-epoch reports
// to the master. The dense stack, its gradients and its DDP buckets live on
// the trainer's device (a GPU on cuda runs, as in the seed); the embedding
// shards stay on the parameter servers' CPUs, so lookups and gradients
// cross between host and device every step.
#pragma once

#include <string>

#include "distbench/api/benchmark_spec.h"
#include "distbench/worker/comm/rendezvous.h"
#include "distbench/worker/common/worker_identity.h"
#include "distbench/worker/gpu/compute_device.h"
#include "distbench/worker/hybrid/hybrid_metrics.h"

namespace distbench::worker {

struct TrainerOptions {
  std::string dumpStateDir;    // non-empty: write final dense parameters there
  bool progressLines = false;  // progress lines (api/progress_line.h) on stderr
};

void runHybridTrainer(const WorkerIdentity& identity, const api::DistBenchmark& benchmark,
                      Rendezvous& rendezvous, const ComputeDevice& device,
                      HybridTrainerMetrics& metrics, const TrainerOptions& options);

}  // namespace distbench::worker
