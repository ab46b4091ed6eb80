// Who this process is, from the environment the renderer sets
// (docs/architecture.md, "Ranks and the environment contract").
#pragma once

#include <string>

#include "distbench/api/rank_layout.h"
#include "distbench/api/role.h"

namespace distbench::worker {

struct WorkerIdentity {
  api::Role role = api::Role::Master;
  int rank = 0;
  int roleIndex = 0;
  int worldSize = 0;
  int numParameterServers = 0;
  int numTrainers = 0;
  std::string masterAddr;
  int masterPort = 0;
  std::string configPath;
  std::string benchmarkName;
  int metricsPort = 0;  // 0: no /metrics endpoint
  std::string metricsAddress = "0.0.0.0";  // where /metrics listens
  int metricsLingerSeconds = 0;
  std::string bindAddress;  // where this rank's Gloo device listens
  // From DISTBENCH_RUN_KEY_FILE (api/run_key.h); empty when unset.
  std::string runKey;

  std::string label() const;  // "ps1 (rank 2)"
  api::TopologySpec topology() const;
};

api::TopologySpec makeTopology(int numParameterServers, int numTrainers);

// Reads RANK, WORLD_SIZE, ... and checks they agree with each other.
// Throws std::runtime_error naming the variable at fault.
WorkerIdentity identityFromEnvironment();

// "ps1 (rank 2)" for any global rank of the given layout.
std::string describeRank(int numParameterServers, int numTrainers, int globalRank);

}  // namespace distbench::worker
