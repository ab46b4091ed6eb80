// Several Gloo ranks as threads of one test process, each with its own group
// over one in-process store: real collectives without extra processes.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "comm/process_group.h"

namespace distbench::worker {

using RankBody = std::function<void(int rank, ProcessGroup& group)>;

// Runs body(rank, group) on `world` threads; returns each rank's exception
// message, "" where it finished. `name` keeps groups of one test apart.
std::vector<std::string> runRanksCollectingErrors(int world, const std::string& name,
                                                  const RankBody& body);

// As above, and fails the test for every rank that threw.
void runRanks(int world, const std::string& name, const RankBody& body);

}  // namespace distbench::worker
