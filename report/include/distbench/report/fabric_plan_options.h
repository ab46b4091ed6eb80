// What the Fabric planner (fabric_plan.h) is asked and what it answers a
// round in. Apart from fabric_plan.h so that the planner's private parts
// (src/fabric_plan_internal.h), which fabric_plan.cpp includes, include
// these and not the planner's header that includes them.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace distbench::report {

using FabricRound = std::vector<std::pair<int, int>>;  // node indices, first < second

struct FabricPlanOptions {
  int allPairsUpTo = 16;
  double thresholdPercent = 25;  // what a suspect is, as the verdict's line
  // Past allPairsUpTo: at most this share of all pairs is measured.
  double maxPairShare = 0.10;
  uint64_t seed = 1;  // the first pass's random matchings
};

}  // namespace distbench::report
