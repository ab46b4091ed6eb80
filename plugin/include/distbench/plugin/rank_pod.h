// A rank as a user names it (master, ps1, trainer3, or a global rank) to
// the pod that runs it (api::podName): the same name in every gang, since a
// gang restart deletes the pods and makes them again.
#pragma once

#include <string>

namespace distbench::plugin {

// Throws cli::UsageError naming the rank and what would be taken.
// parameterServers and trainers: the run's spec.topology.
std::string rankPod(const std::string& benchmark, const std::string& rank, int parameterServers,
                    int trainers);

}  // namespace distbench::plugin
