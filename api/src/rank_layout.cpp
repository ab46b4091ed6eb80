#include "distbench/api/rank_layout.h"

#include <stdexcept>

namespace distbench::api {

int masterRank() { return 0; }

int parameterServerRank(int psIndex) {
  if (psIndex < 0) throw std::out_of_range("negative parameter server index");
  return 1 + psIndex;
}

int trainerRank(const TopologySpec& topology, int trainerIndex) {
  if (trainerIndex < 0 || trainerIndex >= topology.trainers) {
    throw std::out_of_range("trainer index " + std::to_string(trainerIndex) + " not in 0.." +
                            std::to_string(topology.trainers - 1));
  }
  return 1 + topology.parameterServers + trainerIndex;
}

std::string rankLabel(const TopologySpec& topology, int globalRank) {
  if (globalRank == masterRank()) return "master";
  if (globalRank >= 1 && globalRank <= topology.parameterServers) {
    return "ps" + std::to_string(globalRank - 1);
  }
  const int trainer = globalRank - 1 - topology.parameterServers;
  if (trainer >= 0 && trainer < topology.trainers) return "trainer" + std::to_string(trainer);
  throw std::out_of_range("rank " + std::to_string(globalRank) + " not in a world of " +
                          std::to_string(1 + topology.parameterServers + topology.trainers));
}

}  // namespace distbench::api
