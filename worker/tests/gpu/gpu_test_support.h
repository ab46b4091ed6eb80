// For the tests that need a GPU (ctest label `gpu`): they are compiled in
// every build, so they cannot rot, and skip themselves with the reason
// where this machine or build cannot run them (CI never has a GPU).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "distbench/worker/gpu/gpu_runtime.h"
#include "distbench/worker/gpu/torch_cuda.h"

namespace distbench::worker::testing {

// Why GPU tests cannot run here, or "" when they can: this build's LibTorch
// has CUDA and the CUDA runtime sees at least `gpus` devices.
inline std::string whyNoGpu(int gpus = 1) {
  const std::string build = torchCudaUnavailable();
  if (!build.empty()) return build;
  const GpuRuntime runtime = probeGpuRuntime();
  if (!runtime.unavailable.empty()) return "no GPU: " + runtime.unavailable;
  if (static_cast<int>(runtime.devices.size()) < gpus) {
    return "needs " + std::to_string(gpus) + " GPUs, this machine has " +
           std::to_string(runtime.devices.size());
  }
  return "";
}

}  // namespace distbench::worker::testing

#define DISTBENCH_SKIP_WITHOUT_GPUS(n)                                              \
  do {                                                                              \
    const std::string distbench_why = ::distbench::worker::testing::whyNoGpu(n);    \
    if (!distbench_why.empty()) GTEST_SKIP() << distbench_why;                      \
  } while (false)
