// The run's view of the rendezvous store: every key a rank reads or writes
// lives under a prefix made from the run key (api/run_key.h), so that a
// client without the key can name none of them. Ranks started without a key
// (tests, a hand-made environment) use the store's keys as they are.
#pragma once

#include <c10/util/intrusive_ptr.h>

#include <chrono>

#include "distbench/worker/common/worker_identity.h"

namespace c10d {
class Store;
}

namespace distbench::worker {

// Connects to the master's store, or hosts it (`host`, the master's first
// connection); the master reaches its own store over loopback, since its
// Service address may not route back to itself. Throws what c10d throws.
c10::intrusive_ptr<c10d::Store> connectRunStore(const WorkerIdentity& id, bool host,
                                                std::chrono::milliseconds timeout);

}  // namespace distbench::worker
