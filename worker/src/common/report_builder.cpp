#include "distbench/worker/common/report_builder.h"

#include <torch/version.h>

#include "distbench/api/spec_yaml.h"

namespace distbench::worker {

report::Report reportEnvelope(const api::DistBenchmark& b, const report::Host& host) {
  report::Report r;
  r.name = b.metadata.name;
  r.kind = api::toString(b.spec.benchmark.kind);
  r.versions = {{"distbench", DISTBENCH_VERSION}, {"torch", TORCH_VERSION}};
  r.backend = api::toString(b.spec.runtime.backend);
  r.device = api::toString(b.spec.runtime.device);
  r.host = host;
  r.trainers = b.spec.topology.trainers;
  r.parameterServers = b.spec.topology.parameterServers;
  r.worldSize = api::worldSize(b.spec);
  r.seed = b.spec.benchmark.seed;
  r.bucketCapMB = b.spec.benchmark.bucketCapMB;
  r.configJson = api::toJson(b);
  return r;
}

}  // namespace distbench::worker
