// A Fabric run's report (docs/report-schema.md): series for `distbench
// diff` (the allreduce first, the headline; each node's probe; each link's
// transfers per size) and resultsJson {"fabric", "fabricVerdict"}, the raw
// samples and the verdict on them, so a reader can judge them again.
#pragma once

#include "distbench/report/fabric.h"
#include "distbench/report/fabric_verdict.h"
#include "distbench/report/report.h"

namespace distbench::worker {

void addFabricResults(report::Report& report, const report::FabricMeasurements& m,
                      const report::FabricVerdict& verdict);

}  // namespace distbench::worker
