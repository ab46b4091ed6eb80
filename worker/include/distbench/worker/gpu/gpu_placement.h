// Which GPU a rank computes on, decided before it touches one: from
// LOCAL_RANK among the LOCAL_WORLD_SIZE GPU ranks on its node (the
// renderer sets both: 0 and 1 in a pod, the trainer index and count when
// `distbench run` puts every rank on one host) and the GPUs this process
// sees (the device plugin or CUDA_VISIBLE_DEVICES renumber them from 0).
// NCCL refuses two ranks on one GPU, and says so only once the first
// collective hangs or fails; so more NCCL ranks than GPUs on a node are
// refused here, naming the numbers. Gloo on CUDA tensors stages through host
// memory, so its ranks may share GPUs (round robin). Pure logic.
#pragma once

#include <stdexcept>
#include <string>

#include "distbench/api/benchmark_spec.h"

namespace distbench::worker {

// A rank that cannot have a GPU: the message names the field or variable
// and the numbers, and what to change.
class PlacementError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct PlacementRequest {
  api::Backend backend = api::Backend::NCCL;
  std::string rankLabel;         // "trainer1 (rank 3)", for messages
  int localRank = 0;             // LOCAL_RANK
  int localWorldSize = 1;        // LOCAL_WORLD_SIZE
  int visibleGpus = 0;           // what the CUDA runtime counts
  std::string unavailable;       // the runtime's reason when it counts none
  std::string cudaVisibleDevices;  // CUDA_VISIBLE_DEVICES as set; "" unset
};

// The index (as this process numbers GPUs) of the rank's GPU. Throws
// PlacementError.
int placeOnGpu(const PlacementRequest& request);

// LOCAL_RANK and LOCAL_WORLD_SIZE from the environment: 0 and 1 when unset
// (one rank per pod or node). Throws PlacementError naming the variable
// when one is not a number, or when LOCAL_RANK is outside
// 0..LOCAL_WORLD_SIZE-1.
struct LocalRanks {
  int localRank = 0;
  int localWorldSize = 1;
};
LocalRanks localRanksFromEnvironment();

}  // namespace distbench::worker
