// The Fabric kind's two roles. The trainers (one per node) take turns at
// the compute probe, sample by sample, so that ranks sharing a machine (a
// local run, or onePerNode: false) do not slow one another's; then measure
// the pairs round by round (fabric_rounds.h) and the whole group's
// allreduce, and hand everything to the master through the store. The
// master measures nothing: it assembles report::FabricMeasurements and
// judges them.
#pragma once

#include "distbench/api/benchmark_spec.h"
#include "distbench/report/fabric.h"

namespace distbench::worker {

class ComputeDevice;
class Rendezvous;

// `progressLines`: steps done (progress_reporter.h): each compute probe
// sample, each round of transfers, and the allreduce.
void runFabricRank(Rendezvous& rendezvous, const api::DistBenchmark& benchmark,
                   const ComputeDevice& device, bool progressLines = false);

report::FabricMeasurements runFabricMaster(Rendezvous& rendezvous,
                                           const api::DistBenchmark& benchmark);

}  // namespace distbench::worker
