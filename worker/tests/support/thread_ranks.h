// Several Gloo ranks as threads of one test process, each with its own group
// over one in-process store: real collectives without extra processes.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "distbench/worker/comm/process_group.h"

namespace distbench::worker {

using RankBody = std::function<void(int rank, ProcessGroup& group)>;

// Gloo on the CPU over 127.0.0.1, with a 30 s timeout.
GroupOptions loopbackGloo();

// Runs body(rank, group) on `world` threads; returns each rank's exception
// message, "" where it finished. `name` keeps groups of one test apart.
// Bodies start once every rank's group is built, and groups go once every
// body has returned (each wait ends at the group's timeout): a rank done
// early must not close connections its peers are still joining or reading.
// `options`: the groups' backend and device (default: Gloo on the CPU, on
// loopback, a 30 s timeout). `keepGroups`: the groups are never freed, for
// a role that, like the worker's on a failure, leaves threads behind that
// still use its group (the worker exits; a test process goes on).
std::vector<std::string> runRanksCollectingErrors(int world, const std::string& name,
                                                  const RankBody& body,
                                                  const GroupOptions& options = loopbackGloo(),
                                                  bool keepGroups = false);

// As above, and fails the test for every rank that threw.
void runRanks(int world, const std::string& name, const RankBody& body,
              const GroupOptions& options = loopbackGloo());

}  // namespace distbench::worker
