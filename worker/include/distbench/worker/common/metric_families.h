// Building blocks of the metric types, for their .cpp files only (this
// header brings in prometheus-cpp, which the worker's headers keep out).
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>

#include <string>

#include "distbench/worker/common/metrics.h"

namespace distbench::worker {

// 10 us .. 100 s in 1-2-5 steps: covers a loopback RPC and a slow epoch, and
// the le labels print as written (no 8.000000000000001e-05).
prometheus::Histogram::BucketBoundaries secondsBuckets();

// A family carrying the endpoint's labels.
prometheus::Family<prometheus::Histogram>& histogramFamily(const MetricsEndpoint& endpoint,
                                                           const std::string& name,
                                                           const std::string& help);
prometheus::Family<prometheus::Counter>& counterFamily(const MetricsEndpoint& endpoint,
                                                       const std::string& name,
                                                       const std::string& help);

prometheus::Family<prometheus::Gauge>& gaugeFamily(const MetricsEndpoint& endpoint,
                                                   const std::string& name,
                                                   const std::string& help);

}  // namespace distbench::worker
