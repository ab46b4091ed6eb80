// Forming a process group's backend within the group's timeout. Gloo waits
// five times its timeout for a pair's first connection (gloo's tcp Pair:
// "longer timeout when waiting for initial connect"), and one timeout serves
// both that and every send and receive, so it cannot be shortened for the
// connect alone: a peer that published its address and then stopped would
// hold this rank 5 x peerTimeoutSeconds (300 s by default) in the
// constructor, against the worker's promise that every wait ends at its
// timeout. The backend is therefore built on a thread of its own, and the
// caller gives up at the timeout.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "distbench/worker/comm/c10d_backends.h"

namespace distbench::worker {

// Runs `build` on a new thread and returns what it returns (or rethrows what
// it throws) if it finishes within `timeout`. Otherwise throws PeerError:
// "forming <what> failed after at most T s: not every rank connected within
// the timeout (peerTimeoutSeconds)". The thread is then left to finish on
// its own: `build` must own what it uses (copies, intrusive_ptrs), and the
// backend it returns is closed and dropped there. A worker ends at once on
// that error (TerminationWatch, _exit), so nothing waits for the thread.
BackendHandle formWithin(std::function<BackendHandle()> build, std::chrono::milliseconds timeout,
                         const std::string& what);

// Builds given up on by formWithin that are still running: for tests, which
// must not end their process under one.
int abandonedFormations();

}  // namespace distbench::worker
