#include "distbench/worker/comm/c10d_backends.h"

#ifndef USE_C10D_GLOO
#define USE_C10D_GLOO  // Debian's header is empty without it
#endif
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

namespace distbench::worker {

BackendHandle makeGlooBackend(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                              const std::string& hostname, std::chrono::milliseconds timeout) {
  auto options = c10d::ProcessGroupGloo::Options::create(timeout);
  options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(hostname));
  // Two worker threads let a bucket's allreduce run while the next is queued.
  options->threads = 2;
  BackendHandle handle;
  handle.backend = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, size, options);
  return handle;
}

}  // namespace distbench::worker
