// torch_cuda.h where LibTorch has no CUDA (Debian 12's 1.13, Debian 13's
// libtorch-dev): the worker refuses spec.runtime.device cuda up front with
// torchCudaUnavailable()'s reason, so nothing below runs in a correct
// program; each says so if it is ever reached.
#include <torch/version.h>

#include <stdexcept>

#include "distbench/worker/gpu/torch_cuda.h"

namespace distbench::worker {
namespace {

[[noreturn]] void unavailable() { throw std::logic_error(torchCudaUnavailable()); }

}  // namespace

std::string torchCudaUnavailable() {
  return std::string("this distbench-worker's LibTorch (") + TORCH_VERSION +
         ") was built without CUDA: use the CUDA worker image "
         "(dockerfiles/worker-cuda.Dockerfile) or a build against a CUDA LibTorch "
         "(-DDISTBENCH_CUDA=ON, docs/gpu.md)";
}

void useCudaDevice(int) { unavailable(); }
std::unique_ptr<StepClock> makeCudaClock(int) { unavailable(); }
void synchronizeCurrentStream(int, std::chrono::milliseconds, const std::string&) {
  unavailable();
}
long cudnnVersion() { return 0; }

}  // namespace distbench::worker
