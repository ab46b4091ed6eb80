// The run's view of the rendezvous store: every key a rank reads or writes
// lives under a prefix made from the run key (api/run_key.h), so that a
// client without the key can name none of them. Ranks started without a key
// (tests, a hand-made environment) use the store's keys as they are.
#pragma once

#include <c10/util/intrusive_ptr.h>

#include <chrono>
#include <string>

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

// The key must not leave the process in any text: LibTorch 2.x names the
// store keys a timed-out wait was for ("keys: /run-<KEY>/global/0/3"), and
// a rank's last line becomes its pod's termination message, then the
// DistBenchmark's status and Events. rememberRunKey (TerminationWatch::
// setIdentity calls it) makes redactRunKey replace this process's key
// wherever it stands, besides anything shaped like a key after "run-"
// (api::redactRunKeys). Redact before cutting a text to a bound.
void rememberRunKey(const std::string& key);
std::string redactRunKey(const std::string& text);

}  // namespace distbench::worker
