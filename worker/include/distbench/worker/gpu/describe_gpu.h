// The DeviceFacts (common/device_facts.h) of one of this node's GPUs, which
// a trainer publishes once placed. Here rather than in common/ because it
// reads the GPU runtime (gpu_runtime.h), and common/ depends on nothing above
// it.
#pragma once

#include "distbench/worker/common/device_facts.h"

namespace distbench::worker {

struct GpuRuntime;

// GPU `index` of `runtime` (gpu_runtime.h) on this node, with cuDNN's version.
DeviceFacts describeGpu(const GpuRuntime& runtime, int index, long cudnnVersion);

}  // namespace distbench::worker
