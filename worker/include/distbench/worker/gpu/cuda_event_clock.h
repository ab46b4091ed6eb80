// A StepClock (step_clock.h) of CUDA events: mark() records an event on the
// stream `currentStream` names at that moment (LibTorch's current stream of
// the calling thread, given by the caller so that this file needs only the
// CUDA runtime), settle() polls the event until it completes or the timeout
// passes, seconds() is cudaEventElapsedTime. Events are created on `device`
// and reused from step to step.
#pragma once

#include <functional>
#include <memory>

#include "distbench/worker/gpu/step_clock.h"

namespace distbench::worker {

// `currentStream` returns a cudaStream_t (as void*, so that callers need no
// CUDA header); nullptr is the legacy default stream. Throws
// std::runtime_error naming the CUDA error when `device` cannot be used.
std::unique_ptr<StepClock> makeCudaEventClock(int device, std::function<void*()> currentStream);

// Blocks until the work queued so far on `stream` is done, polling, at most
// `timeout`; then throws std::runtime_error naming `what`. A plain
// cudaStreamSynchronize has no timeout: a collective whose peer died would
// hold the rank for good.
void waitForCudaStream(int device, void* stream, std::chrono::milliseconds timeout,
                       const std::string& what);

}  // namespace distbench::worker
