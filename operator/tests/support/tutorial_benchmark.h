// The tutorial preset as the operator's pure tests render it: benchmark
// "tut" in namespace "bench", owned by a resource with a fixed UID.
#pragma once

#include "distbench/api/presets.h"
#include "distbench/operator/benchmarks/desired_objects.h"

namespace distbench::op {

inline api::DistBenchmark tutorialBenchmark() {
  api::DistBenchmark b = api::preset("tutorial");
  b.metadata.name = "tut";
  b.metadata.namespace_ = "bench";
  return b;
}

inline const Owner kTutorialOwner{"tut", "1234-uid"};

}  // namespace distbench::op
