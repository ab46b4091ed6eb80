// Reads and checks a spec.template (run_template.h) for the two resources
// made of one: the schedule and the preflight policy. Internal to
// distbench_api.
#pragma once

#include <yaml-cpp/yaml.h>

#include <set>
#include <string>

#include "distbench/api/run_template.h"
#include "field_errors.h"
#include "spec_reader.h"

namespace distbench::api::detail {

// spec.template: metadata.labels/annotations and spec, the spec read by the
// same code as a DistBenchmark's.
void readRunTemplate(Reader& r, const YAML::Node& node, const std::string& path, RunTemplate& t);

// Keys the resource owning a template sets on every run itself, and how its
// errors name it ("the schedule").
struct ReservedRunKeys {
  std::set<std::string> labels;
  std::set<std::string> annotations;
  std::string owner;
};

// The template's label and annotation keys and values, under
// "spec.template.metadata."; a reserved key is refused ("set by <owner> on
// every run; remove it").
void checkRunTemplateMetadata(const RunTemplateMetadata& m, const ReservedRunKeys& reserved,
                              FieldErrors& errors);

}  // namespace distbench::api::detail
