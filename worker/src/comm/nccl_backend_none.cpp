// makeNcclBackend where LibTorch has no CUDA: the worker refuses
// spec.runtime.backend nccl before any group is made (worker_main.cpp asks
// ncclBackendUnavailable()), so this throws only if that check is bypassed.
#include <torch/version.h>

#include <stdexcept>

#include "distbench/worker/comm/c10d_backends.h"

namespace distbench::worker {

BackendHandle makeNcclBackend(const c10::intrusive_ptr<c10d::Store>&, int, int,
                              std::chrono::milliseconds) {
  throw std::logic_error(ncclBackendUnavailable());
}

std::string ncclBackendUnavailable() {
  return std::string("this distbench-worker's LibTorch (") + TORCH_VERSION +
         ") has no NCCL process group: it was built without CUDA";
}

}  // namespace distbench::worker
