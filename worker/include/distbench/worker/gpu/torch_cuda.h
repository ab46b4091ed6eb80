// LibTorch's CUDA side, as much as the worker needs, behind a header with
// no CUDA or LibTorch types. Two implementations, chosen by CMake
// (cmake/Cuda.cmake): torch_cuda.cpp where LibTorch was built with CUDA
// (Debian 13's libtorch-cuda-dev, a CUDA LibTorch zip, PyTorch's wheel),
// torch_cuda_none.cpp where it was not (Debian 12's LibTorch 1.13).
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "distbench/worker/gpu/step_clock.h"

namespace distbench::worker {

// Why this build cannot put tensors on a GPU ("" when it can): names the
// LibTorch version and what build can.
std::string torchCudaUnavailable();

// Makes GPU `index` the calling thread's device, LibTorch's and the CUDA
// runtime's, so tensors, streams and NCCL communicators land on it.
void useCudaDevice(int index);

// A StepClock of CUDA events on the calling thread's current stream
// (cuda_event_clock.h).
std::unique_ptr<StepClock> makeCudaClock(int index);

// Blocks until the work queued so far on the calling thread's current
// stream of GPU `index` is done, at most `timeout` (cuda_event_clock.h).
void synchronizeCurrentStream(int index, std::chrono::milliseconds timeout,
                              const std::string& what);

// cuDNN's version as LibTorch reports it (90100 for 9.1.0), 0 without
// cuDNN.
long cudnnVersion();

}  // namespace distbench::worker
