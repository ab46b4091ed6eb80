// A parameter server: holds one EmbeddingBag shard, created by the master,
// and serves lookups, gradient pushes and optimizer steps from trainers
// until the master says stop. One thread; requests from all trainers arrive
// on one tag and are served in arrival order (per trainer, Gloo keeps order).
#pragma once

#include <string>

#include "distbench/api/benchmark_spec.h"
#include "metrics.h"
#include "process_group.h"
#include "worker_identity.h"

namespace distbench::worker {

struct ParameterServerOptions {
  api::ParameterServerMode mode = api::ParameterServerMode::Async;
  std::string dumpStateDir;  // non-empty: write the final table there
};

// Returns when the master sends Shutdown; throws PeerError when a peer fails
// or stays silent past the peer timeout.
void runParameterServer(const WorkerIdentity& identity, ProcessGroup& global,
                        WorkerMetrics& metrics, const ParameterServerOptions& options);

}  // namespace distbench::worker
