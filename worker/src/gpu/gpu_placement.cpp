#include "distbench/worker/gpu/gpu_placement.h"

#include <cerrno>
#include <climits>
#include <cstdlib>

#include "distbench/api/worker_env.h"

namespace distbench::worker {
namespace {

std::string visibleText(const PlacementRequest& r) {
  return r.cudaVisibleDevices.empty() ? "CUDA_VISIBLE_DEVICES unset"
                                      : "CUDA_VISIBLE_DEVICES=" + r.cudaVisibleDevices;
}

std::string gpus(int n) { return std::to_string(n) + (n == 1 ? " GPU" : " GPUs"); }

int integerVariable(const char* name, int fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || value < INT_MIN || value > INT_MAX) {
    throw PlacementError(std::string(name) + "=" + text + " is not an integer");
  }
  return static_cast<int>(value);
}

}  // namespace

int placeOnGpu(const PlacementRequest& r) {
  if (r.localWorldSize < 1 || r.localRank < 0 || r.localRank >= r.localWorldSize) {
    throw PlacementError(r.rankLabel + ": LOCAL_RANK=" + std::to_string(r.localRank) +
                         " is not in 0..LOCAL_WORLD_SIZE-1 (LOCAL_WORLD_SIZE=" +
                         std::to_string(r.localWorldSize) + ")");
  }
  if (r.visibleGpus <= 0) {
    throw PlacementError(
        "spec.runtime.device: cuda, but " + r.rankLabel + " sees no GPU on this node (" +
        (r.unavailable.empty() ? "no device counted" : r.unavailable) + "; " + visibleText(r) +
        "). On Kubernetes the trainers request nvidia.com/gpu (spec.runtime.gpusPerRank) and "
        "need a node with the NVIDIA device plugin; locally, run where nvidia-smi lists a GPU");
  }
  if (r.backend == api::Backend::NCCL && r.localWorldSize > r.visibleGpus) {
    throw PlacementError("spec.runtime.backend: nccl needs a GPU of its own for every rank, but " +
                         std::to_string(r.localWorldSize) +
                         " GPU ranks share this node (LOCAL_WORLD_SIZE=" +
                         std::to_string(r.localWorldSize) + ") and " + r.rankLabel + " sees " +
                         gpus(r.visibleGpus) + " (" + visibleText(r) +
                         "); NCCL refuses two ranks on one GPU. Use backend gloo to share GPUs "
                         "(Gloo on CUDA tensors), or fewer trainers per node");
  }
  return r.localRank % r.visibleGpus;
}

LocalRanks localRanksFromEnvironment() {
  LocalRanks l;
  l.localWorldSize = integerVariable(api::kEnvLocalWorldSize, 1);
  l.localRank = integerVariable(api::kEnvLocalRank, 0);
  if (l.localWorldSize < 1) {
    throw PlacementError(std::string(api::kEnvLocalWorldSize) + "=" +
                         std::to_string(l.localWorldSize) + " must be at least 1");
  }
  if (l.localRank < 0 || l.localRank >= l.localWorldSize) {
    throw PlacementError(std::string(api::kEnvLocalRank) + "=" + std::to_string(l.localRank) +
                         " is not in 0.." + std::to_string(l.localWorldSize - 1) + " (" +
                         api::kEnvLocalWorldSize + "=" + std::to_string(l.localWorldSize) + ")");
  }
  return l;
}

}  // namespace distbench::worker
