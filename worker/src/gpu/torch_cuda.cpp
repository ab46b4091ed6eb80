// torch_cuda.h where LibTorch has CUDA.
#include "distbench/worker/gpu/torch_cuda.h"

#include <ATen/cuda/CUDAContext.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/cuda/CUDAFunctions.h>

#include "distbench/worker/gpu/cuda_event_clock.h"

namespace distbench::worker {
namespace {

void* currentStream() { return at::cuda::getCurrentCUDAStream().stream(); }

// The hook is detected, not called outright: it is not a stable API, and a
// LibTorch without it must still build (the report then says 0, as for a
// build without cuDNN) on the one GPU machine where this file compiles.
template <typename Hooks>
auto cudnnVersionOf(const Hooks& hooks, int) -> decltype(static_cast<long>(hooks.versionCuDNN())) {
  return static_cast<long>(hooks.versionCuDNN());
}
template <typename Hooks>
long cudnnVersionOf(const Hooks&, long) {
  return 0;
}

}  // namespace

std::string torchCudaUnavailable() { return ""; }

void useCudaDevice(int index) { c10::cuda::set_device(static_cast<c10::DeviceIndex>(index)); }

std::unique_ptr<StepClock> makeCudaClock(int index) {
  return makeCudaEventClock(index, &currentStream);
}

void synchronizeCurrentStream(int index, std::chrono::milliseconds timeout,
                              const std::string& what) {
  waitForCudaStream(index,
                    at::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(index)).stream(),
                    timeout, what);
}

long cudnnVersion() {
  try {
    return cudnnVersionOf(at::detail::getCUDAHooks(), 0);
  } catch (const std::exception&) {
    return 0;  // built without cuDNN
  }
}

}  // namespace distbench::worker
