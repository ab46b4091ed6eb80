// A parameter server: holds one EmbeddingBag shard, created by the master
// over the global group, and serves lookups, gradient pushes and optimizer
// steps over each trainer's link (ps_link.h). One thread per peer (each
// trainer, and the master), as torch's RPC agent keeps a thread pool; the
// shard itself is guarded by one mutex.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "distbench/worker/comm/framed_socket.h"
#include "distbench/worker/comm/process_group.h"
#include "distbench/worker/common/worker_identity.h"
#include "distbench/worker/hybrid/hybrid_metrics.h"
#include "distbench/worker/hybrid/ps_service_stats.h"

namespace distbench::worker {

struct ParameterServerOptions {
  api::HybridDDPRPCSpec spec;  // message sizes and the PS update mode
  std::string dumpStateDir;    // non-empty: write the final table there
  // If set, gets the server's measured service times and bytes once every
  // trainer is done, before the master's Shutdown is answered: whatever it
  // publishes is there when the master has the reply.
  std::function<void(const ParameterServerStats&)> publishStats{};
};

// Returns after every trainer said Done and the master said Shutdown; throws
// PeerError when a peer fails or stays silent past the peer timeout.
// `trainerLinks`: one per trainer, in trainer order.
void runHybridParameterServer(const WorkerIdentity& identity, ProcessGroup& global,
                              std::vector<FramedSocket> trainerLinks,
                              ParameterServerMetrics& metrics,
                              const ParameterServerOptions& options);

}  // namespace distbench::worker
