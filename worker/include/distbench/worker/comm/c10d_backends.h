// c10d's process-group backends, made for the adapter (process_group.h):
// ProcessGroupGloo always (gloo_backend.cpp), ProcessGroupNCCL where
// LibTorch has CUDA (nccl_backend.cpp; nccl_backend_none.cpp elsewhere).
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/util/intrusive_ptr.h>

#include <chrono>
#include <functional>
#include <string>
#include <torch/csrc/distributed/c10d/Work.hpp>
#include <vector>

#include "distbench/worker/comm/c10d_version.h"

namespace c10d {
class Store;
}

namespace distbench::worker {

struct BackendHandle {
  c10::intrusive_ptr<C10dBackend> backend;
  // Run once the group is done with, before the last reference goes: NCCL
  // flushes and destroys its communicators (its destructor otherwise warns
  // that nobody did). Empty for Gloo.
  std::function<void()> close;
  // A send to `dst` and a receive from `src` as one fused op (NCCL: a
  // coalesced group; two ranks exchanging with each other would otherwise
  // queue each one's send behind its own receive on one stream and wait
  // for ever). Empty where separate calls are safe (Gloo).
  std::function<c10::intrusive_ptr<c10d::Work>(at::Tensor send, int dst, at::Tensor recv, int src,
                                               int tag)>
      fusedExchange;
};

// A Gloo group bound to `hostname`'s address.
BackendHandle makeGlooBackend(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                              const std::string& hostname, std::chrono::milliseconds timeout);

// An NCCL group on the calling thread's current GPU; `timeout` is what its
// watchdog allows any one collective. Communicators are made at the first
// collective, through `store`.
BackendHandle makeNcclBackend(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                              std::chrono::milliseconds timeout);

// Why this build has no NCCL process group, or "" when it has one.
std::string ncclBackendUnavailable();

}  // namespace distbench::worker
