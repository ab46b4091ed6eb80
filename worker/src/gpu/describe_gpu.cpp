#include "distbench/worker/gpu/describe_gpu.h"

#include <unistd.h>

#include <string>

#include "distbench/worker/gpu/gpu_runtime.h"

namespace distbench::worker {
namespace {

std::string hostname() {
  char name[256] = {0};
  return gethostname(name, sizeof(name) - 1) == 0 ? name : "";
}

}  // namespace

DeviceFacts describeGpu(const GpuRuntime& runtime, int index, long cudnnVersion) {
  DeviceFacts f;
  f.host = hostname();
  if (index >= 0 && static_cast<size_t>(index) < runtime.devices.size()) {
    const GpuDevice& d = runtime.devices[static_cast<size_t>(index)];
    f.gpu = d.name;
    f.pciBusId = d.pciBusId;
    f.memoryBytes = d.memoryBytes;
  }
  f.runtimeVersion = runtime.runtimeVersion;
  f.driverVersion = runtime.driverVersion;
  f.ncclVersion = runtime.ncclVersion;
  f.cudnnVersion = cudnnVersion;
  return f;
}

}  // namespace distbench::worker
