// The point-to-point part of a Fabric run on one trainer: round after round
// of disjoint pairs, as report::planNextRound decides from what has been
// measured so far. Every trainer runs the same pure planner on the same
// measurements (each round's samples are allgathered over the trainers'
// group), so all agree on the next round without asking the master. In a
// round each pair measures at the same time; a trainer without a peer
// waits in the allgather, which the group's timeout bounds.
#pragma once

#include <functional>
#include <vector>

#include "distbench/report/fabric.h"
#include "distbench/report/fabric_plan.h"
#include "distbench/worker/comm/process_group.h"
#include "distbench/worker/fabric/fabric_wire.h"
#include "distbench/worker/fabric/pair_transfer.h"

namespace distbench::worker {

// Runs every round on trainer `group.rank()` of `group` (one rank per node,
// node index = group rank). Up to allPairsUpTo nodes, where the plan is the
// round robin whatever is measured, the whole schedule runs samplesPerPair
// times with one sample per pass, so that a link's samples spread over the
// phase; past it each planned round takes all its samples at once.
// `sofar` holds the nodes on entry and every measured pair on return, the
// same on every trainer. Returns what this trainer received.
// `betweenRounds`, if set, runs after each round. Throws std::runtime_error
// when the planner does not finish within n (n - 1) / 2 + n rounds or plans
// a pair it already measured.
// How many rounds runFabricRounds takes on `n` trainers: exactly, up to
// allPairsUpTo nodes; past it at most that many (the planner may stop sooner).
long fabricRoundsAtMost(int n, const PairTransferPlan& transfers,
                        const report::FabricPlanOptions& planOptions);

std::vector<FabricReceived> runFabricRounds(ProcessGroup& group, const PairTransferPlan& transfers,
                                            const report::FabricPlanOptions& planOptions,
                                            report::FabricMeasurements& sofar,
                                            const std::function<void()>& betweenRounds = {});

}  // namespace distbench::worker
