#include "distbench/worker/common/metric_families.h"

#include <prometheus/registry.h>

#include <string>

namespace distbench::worker {

prometheus::Histogram::BucketBoundaries secondsBuckets() {
  prometheus::Histogram::BucketBoundaries b;
  for (const char* decade : {"e-5", "e-4", "e-3", "e-2", "e-1", "e0", "e1"}) {
    for (const char* mantissa : {"1", "2", "5"}) {
      b.push_back(std::stod(std::string(mantissa) + decade));
    }
  }
  b.push_back(100);
  return b;
}

prometheus::Family<prometheus::Histogram>& histogramFamily(const MetricsEndpoint& endpoint,
                                                           const std::string& name,
                                                           const std::string& help) {
  return prometheus::BuildHistogram()
      .Name(name)
      .Help(help)
      .Labels(endpoint.labels())
      .Register(endpoint.registry());
}

prometheus::Family<prometheus::Counter>& counterFamily(const MetricsEndpoint& endpoint,
                                                       const std::string& name,
                                                       const std::string& help) {
  return prometheus::BuildCounter()
      .Name(name)
      .Help(help)
      .Labels(endpoint.labels())
      .Register(endpoint.registry());
}

prometheus::Family<prometheus::Gauge>& gaugeFamily(const MetricsEndpoint& endpoint,
                                                   const std::string& name,
                                                   const std::string& help) {
  return prometheus::BuildGauge()
      .Name(name)
      .Help(help)
      .Labels(endpoint.labels())
      .Register(endpoint.registry());
}

}  // namespace distbench::worker
