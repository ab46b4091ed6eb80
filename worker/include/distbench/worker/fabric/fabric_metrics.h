// What a Fabric master exports (docs/metrics.md): per node, gauges of its
// links' bandwidth and its compute, and its status on each (0 ok, 1 slow,
// 2 inconclusive), labelled with the node's rank label and Kubernetes node
// name, so an alert can name the node. Set once, when the verdict is in.
#pragma once

#include "distbench/report/fabric.h"
#include "distbench/report/fabric_verdict.h"

namespace distbench::worker {

class MetricsEndpoint;

void exportFabricVerdict(const MetricsEndpoint& endpoint, const report::FabricMeasurements& m,
                         const report::FabricVerdict& verdict);

// The gauge value of a status: 0 ok, 1 slow, 2 inconclusive.
double fabricStatusValue(report::FabricStatus status);

}  // namespace distbench::worker
