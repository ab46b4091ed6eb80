// What this node's CUDA runtime and NCCL say: versions, and the GPUs this
// process can see (after CUDA_VISIBLE_DEVICES and the device plugin). Plain
// C++: no CUDA or LibTorch types, so the placement, the report and the
// worker's start-up read it without either. Two implementations, chosen by
// CMake (cmake/Cuda.cmake): gpu_runtime_cuda.cpp asks the CUDA runtime and
// NCCL the build found; gpu_runtime_none.cpp, in a build without them, says
// so in `unavailable`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace distbench::worker {

struct GpuDevice {
  int index = 0;          // as this process numbers them, from 0
  std::string name;       // "NVIDIA H100 80GB HBM3"
  std::string pciBusId;   // "0000:1b:00.0"
  int64_t memoryBytes = 0;
  int computeMajor = 0;
  int computeMinor = 0;
};

struct GpuRuntime {
  // Why this process cannot use a GPU at all, or "" when it can see one:
  // a build without the CUDA runtime, no driver, or no device visible. Names
  // the CUDA error, e.g. "cudaGetDeviceCount: cudaErrorNoDevice: no
  // CUDA-capable device is detected".
  std::string unavailable;
  int runtimeVersion = 0;  // the CUDA runtime linked: 13000 for 13.0; 0 without one
  int driverVersion = 0;   // the newest CUDA the driver supports; 0 without a driver
  int ncclVersion = 0;     // the NCCL loaded: 22809 for 2.28.9; 0 without one
  std::vector<GpuDevice> devices;
};

// Asks once per call; cheap after the first (the CUDA runtime caches).
GpuRuntime probeGpuRuntime();

// Whether this worker was built with the CUDA runtime and NCCL
// (DISTBENCH_CUDA found them).
bool builtWithCudaRuntime();

}  // namespace distbench::worker
