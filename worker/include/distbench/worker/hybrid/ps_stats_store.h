// Parameter servers hand their ParameterServerStats to the master through
// the run's rendezvous store (one key per server), as DDP trainers hand
// their samples: the Gloo messages between them have one fixed size, too
// small for a summary when the spec's messages are small.
#pragma once

#include "distbench/worker/hybrid/ps_service_stats.h"

namespace c10d {
class Store;
}

namespace distbench::worker {

void publishParameterServerStats(c10d::Store& store, int parameterServer,
                                 const ParameterServerStats& stats);
// Waits (the store's timeout) for server `parameterServer`'s stats.
ParameterServerStats readParameterServerStats(c10d::Store& store, int parameterServer);

}  // namespace distbench::worker
