// A DistBenchmark template inside another resource: the schedule's runs
// (schedule_spec.h) and the preflight gate's checks (preflight_policy.h) are
// made from one. Plain values.
#pragma once

#include <map>
#include <string>

#include "distbench/api/benchmark_spec.h"

namespace distbench::api {

// spec.template.metadata: copied onto each run.
struct RunTemplateMetadata {
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
};

// spec.template: each run's metadata and spec.
struct RunTemplate {
  RunTemplateMetadata metadata;
  DistBenchmarkSpec spec;
};

}  // namespace distbench::api
