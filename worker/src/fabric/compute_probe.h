// The Fabric kind's compute probe: a fixed n x n float32 GEMM on the rank's
// device, timed sample by sample. A node whose links look slow but whose
// probe does not is a slow link; one slow at both is a slow node (or a
// busy one), and the verdict can tell them apart.
#pragma once

#include <chrono>
#include <vector>

#include "distbench/worker/gpu/compute_device.h"

namespace distbench::worker {

// Floating-point operations of one n x n GEMM: 2 n^3.
double gemmFlop(int n);

// Runs `warmup` unmeasured GEMMs, then returns the seconds of each of
// `samples` more. On a GPU each sample ends when the device is done (waited
// for up to `timeout`, else std::runtime_error). Throws std::invalid_argument
// for n < 1 or samples < 1.
std::vector<double> runComputeProbe(const ComputeDevice& device, int n, int warmup, int samples,
                                    std::chrono::milliseconds timeout);

}  // namespace distbench::worker
