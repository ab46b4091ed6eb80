// Timestamps for the phases of a training step or a timed op, taken where
// the work runs. On the CPU a mark is the steady clock. On a GPU it is a
// CUDA event recorded on the calling thread's current stream, so a phase
// ends when the device has finished it, not when its kernels were launched
// (LibTorch's calls return long before), and reading it costs no
// synchronize in the middle of a step. Marks are read after settle(), which
// the step's owner calls once, at its end, on the last mark.
#pragma once

#include <chrono>
#include <memory>
#include <string>

namespace distbench::worker {

class StepClock {
 public:
  // Valid from mark() until the next beginStep().
  using Mark = int;

  virtual ~StepClock() = default;
  // Starts a step: the marks of the previous one are forgotten (a GPU
  // clock reuses their events).
  virtual void beginStep() = 0;
  // Now, as the calling thread's device sees it. Safe from any thread, e.g.
  // from a collective's completion callback.
  virtual Mark mark() = 0;
  // Returns once `m` has happened, or throws std::runtime_error after
  // `timeout`, naming `what` ("the GPU finishing trainer0's step"). The CPU
  // clock returns at once.
  virtual void settle(Mark m, std::chrono::milliseconds timeout, const std::string& what) = 0;
  // Seconds from `from` to `to`, both settled (or marked before a settled
  // mark on the same stream).
  virtual double seconds(Mark from, Mark to) = 0;
};

// The steady clock.
std::unique_ptr<StepClock> makeCpuClock();

}  // namespace distbench::worker
