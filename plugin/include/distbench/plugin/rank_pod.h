// A rank as a user names it (master, ps1, trainer3, or a global rank) to
// the pod that runs it (api::podName): the same name in every gang, since a
// gang restart deletes the pods and makes them again.
#pragma once

#include <string>

namespace distbench::plugin {

struct RankPod {
  std::string label;  // master, ps1, trainer3: as logs and the operator name it
  std::string pod;    // <benchmark>-trainer-3
};

// Throws cli::UsageError naming the rank and what would be taken.
// parameterServers and trainers: the run's spec.topology.
RankPod rankPod(const std::string& benchmark, const std::string& rank, int parameterServers,
                int trainers);

}  // namespace distbench::plugin
