// The Fabric kind's compute probe: a fixed n x n float32 GEMM on the rank's
// device, timed sample by sample. A node whose links look slow but whose
// probe does not is a slow link; one slow at both is a slow node (or a
// busy one), and the verdict can tell them apart.
#pragma once

#include <ATen/core/Tensor.h>

#include <chrono>
#include <string>
#include <vector>

#include "distbench/worker/gpu/compute_device.h"

namespace distbench::worker {

// Floating-point operations of one n x n GEMM: 2 n^3.
double gemmFlop(int n);

// The probe's matrices, allocated once on `device`, so that a sample is the
// GEMM alone. Throws std::invalid_argument for n < 1.
class ComputeProbe {
 public:
  ComputeProbe(const ComputeDevice& device, int n);
  // One GEMM's seconds; on a GPU it ends when the device is done (waited
  // for up to `timeout`, else std::runtime_error).
  double sample(std::chrono::milliseconds timeout);

 private:
  ComputeDevice device_;
  std::string what_;
  at::Tensor a_, b_, c_;
};

// `warmup` unmeasured samples, then the seconds of `samples` more. Throws
// std::invalid_argument for samples < 1.
std::vector<double> runComputeProbe(const ComputeDevice& device, int n, int warmup, int samples,
                                    std::chrono::milliseconds timeout);

}  // namespace distbench::worker
