// The device a rank computes on: the CPU, or the one GPU its placement
// chose (gpu_placement.h). Code that makes tensors, times phases or waits
// for results asks it, so the kinds read the same on both devices; only
// torch_cuda.h's implementation differs between builds.
#pragma once

#include <c10/core/Device.h>

#include <chrono>
#include <memory>
#include <string>

#include "distbench/worker/gpu/step_clock.h"

namespace distbench::worker {

class ComputeDevice {
 public:
  static ComputeDevice cpu() { return ComputeDevice(false, -1); }
  // GPU `index`, made the calling thread's current device. Throws
  // std::logic_error in a build whose LibTorch has no CUDA (the worker
  // refuses such a spec before it gets here).
  static ComputeDevice cuda(int index);

  bool isCuda() const { return cuda_; }
  int index() const { return index_; }  // -1 on the CPU
  c10::Device torchDevice() const;
  std::string name() const;  // "cpu", "cuda:0"

  // The steady clock on the CPU; CUDA events on a GPU (step_clock.h).
  // Shared: a collective's completion callback may mark it.
  std::shared_ptr<StepClock> newClock() const;
  // Returns once the work queued so far on this thread's current stream is
  // done; at once on the CPU. Throws std::runtime_error naming `what` after
  // `timeout`.
  void synchronize(std::chrono::milliseconds timeout, const std::string& what) const;

 private:
  ComputeDevice(bool cuda, int index) : cuda_(cuda), index_(index) {}
  bool cuda_;
  int index_;
};

}  // namespace distbench::worker
