// The planner's rounds after the first pass (fabric_plan_internal.h).
#include "fabric_plan_internal.h"

namespace distbench::report::fabric_detail {

FabricRound suspectRound(const FabricMeasurements&, const FabricPlanOptions&,
                         const std::set<std::pair<int, int>>&) {
  // The first pass only, for now: the rounds around suspects come with the
  // verdict's judging (fabric_verdict.cpp), which they call into.
  return {};
}

}  // namespace distbench::report::fabric_detail
