// The planner's parts that the verdict and the tests share but no caller
// needs: the node groups, the first pass, and the round around suspects.
#pragma once

#include <set>
#include <utility>
#include <vector>

#include "distbench/report/fabric.h"
#include "distbench/report/fabric_plan_options.h"

namespace distbench::report::fabric_detail {

// Random perfect matchings in the first pass past allPairsUpTo: each node
// gets this many peers.
inline constexpr int kFirstPassMatchings = 3;
// Node pairs across each pair of groups in the first pass, at the least.
inline constexpr int kPairsPerGroupPair = 2;

// Node indices by FabricNode::group, in order of first appearance; a node
// with no group is a group of its own.
std::vector<std::vector<int>> nodeGroups(const std::vector<FabricNode>& nodes);

// The rounds measured first past allPairsUpTo: a function of the nodes and
// the options alone.
std::vector<FabricRound> firstPass(const std::vector<FabricNode>& nodes,
                                   const FabricPlanOptions& options);

// After the first pass: a round of new pairs around the suspects of
// `sofar`, or empty when none is left undecided or the budget is spent.
FabricRound suspectRound(const FabricMeasurements& sofar, const FabricPlanOptions& options,
                         const std::set<std::pair<int, int>>& measured);

}  // namespace distbench::report::fabric_detail
