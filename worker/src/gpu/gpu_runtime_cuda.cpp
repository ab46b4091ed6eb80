// gpu_runtime.h from the CUDA runtime this build found, and the NCCL the
// process can load. Works on a machine without a driver or a GPU: the
// runtime then answers every call with an error, which `unavailable`
// carries. NCCL is found with dlopen, not linked (cmake/Cuda.cmake): where
// LibTorch has loaded one already, that is the one asked.
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <nccl.h>

#include "distbench/worker/gpu/gpu_runtime.h"

namespace distbench::worker {
namespace {

std::string cudaError(const char* call, cudaError_t e) {
  return std::string(call) + ": " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
}

// NCCL's version as the library the process would use reports it; 0 when
// none can be loaded. The handle is kept: unloading NCCL under LibTorch
// would be worse than holding a reference.
int loadedNcclVersion() {
  void* nccl = dlopen("libnccl.so.2", RTLD_NOW | RTLD_GLOBAL);
  if (nccl == nullptr) return 0;
  using GetVersion = decltype(&ncclGetVersion);
  auto getVersion = reinterpret_cast<GetVersion>(dlsym(nccl, "ncclGetVersion"));
  int version = 0;
  if (getVersion == nullptr || getVersion(&version) != ncclSuccess) return 0;
  return version;
}

}  // namespace

bool builtWithCudaRuntime() { return true; }

GpuRuntime probeGpuRuntime() {
  GpuRuntime r;
  cudaRuntimeGetVersion(&r.runtimeVersion);
  // 0, not an error, when no driver is installed.
  cudaDriverGetVersion(&r.driverVersion);
  r.ncclVersion = loadedNcclVersion();

  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    // A failed call leaves a sticky error for the next one to report.
    cudaGetLastError();
    r.unavailable = cudaError("cudaGetDeviceCount", e);
    return r;
  }
  if (count <= 0) {
    r.unavailable = "cudaGetDeviceCount: no device visible";
    return r;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp p{};
    GpuDevice d;
    d.index = i;
    if (cudaGetDeviceProperties(&p, i) == cudaSuccess) {
      d.name = p.name;
      d.memoryBytes = static_cast<int64_t>(p.totalGlobalMem);
      d.computeMajor = p.major;
      d.computeMinor = p.minor;
    } else {
      cudaGetLastError();
    }
    char bus[32] = {0};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, i) == cudaSuccess) {
      d.pciBusId = bus;
    } else {
      cudaGetLastError();
    }
    r.devices.push_back(d);
  }
  return r;
}

}  // namespace distbench::worker
