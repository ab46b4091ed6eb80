// gpu_runtime.h in a build without the CUDA runtime (DISTBENCH_CUDA=OFF, or
// AUTO on a machine without the CUDA toolkit and NCCL): no GPU can be used,
// and `unavailable` says why and what build would.
#include "distbench/worker/gpu/gpu_runtime.h"

namespace distbench::worker {

bool builtWithCudaRuntime() { return false; }

GpuRuntime probeGpuRuntime() {
  GpuRuntime r;
  r.unavailable =
      "this distbench-worker was built without the CUDA runtime and NCCL "
      "(configure with -DDISTBENCH_CUDA=ON where the CUDA toolkit and NCCL are installed)";
  return r;
}

}  // namespace distbench::worker
