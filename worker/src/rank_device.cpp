#include "distbench/worker/rank_device.h"

#include <cstdlib>

#include "distbench/worker/comm/c10d_backends.h"
#include "distbench/worker/common/device_facts.h"
#include "distbench/worker/common/worker_identity.h"
#include "distbench/worker/gpu/describe_gpu.h"
#include "distbench/worker/gpu/gpu_runtime.h"
#include "distbench/worker/gpu/torch_cuda.h"

namespace distbench::worker {

std::string buildCannotRun(const api::RuntimeSpec& runtime) {
  std::string reasons;
  auto add = [&](const std::string& why) {
    if (!why.empty()) reasons += (reasons.empty() ? "" : "; and ") + why;
  };
  if (runtime.device == api::Device::CUDA) {
    if (!builtWithCudaRuntime()) add(probeGpuRuntime().unavailable);
    add(torchCudaUnavailable());
  }
  if (runtime.backend == api::Backend::NCCL) {
    // Said once: without CUDA there is no NCCL group either.
    if (reasons.empty()) add(ncclBackendUnavailable());
  }
  return reasons;
}

ComputeDevice placeTrainer(const WorkerIdentity& id, const api::RuntimeSpec& runtime,
                           c10d::Store& store) {
  if (runtime.device != api::Device::CUDA) return ComputeDevice::cpu();
  const GpuRuntime gpus = probeGpuRuntime();
  const std::string build = buildCannotRun(runtime);

  PlacementRequest request;
  request.backend = runtime.backend;
  request.rankLabel = id.label();
  request.visibleGpus = static_cast<int>(gpus.devices.size());
  request.unavailable = gpus.unavailable;
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  request.cudaVisibleDevices = visible != nullptr ? visible : "";
  int index = -1;
  std::string node;
  try {
    const LocalRanks local = localRanksFromEnvironment();
    request.localRank = local.localRank;
    request.localWorldSize = local.localWorldSize;
    // Without the CUDA runtime nothing can be known of the node's GPUs;
    // the build's reason says that already.
    if (builtWithCudaRuntime()) index = placeOnGpu(request);
  } catch (const PlacementError& e) {
    node = e.what();
  }
  // Both, when both hold: a CPU-only image on a node without a GPU needs
  // two changes, and saying one at a time costs a run each.
  if (!node.empty() || !build.empty()) {
    std::string why = node;
    if (!build.empty()) why += (why.empty() ? "" : "; and ") + build;
    throw PlacementError(why);
  }
  ComputeDevice device = ComputeDevice::cuda(index);
  publishDeviceFacts(store, id.roleIndex, describeGpu(gpus, index, cudnnVersion()));
  return device;
}

}  // namespace distbench::worker
