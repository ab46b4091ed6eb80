// DistBenchmark <-> YAML and JSON. Parsing is strict, as `kubectl --validate=strict`:
// unknown fields, wrong types and bad enum values are errors naming the field.
// Missing fields take their defaults; the result is validated before return.
// JSON is YAML, so the same parser reads what the Kubernetes API server returns
// (extra metadata fields and a top-level status are accepted and ignored).
#pragma once

#include <string>

#include "distbench/api/benchmark_spec.h"

namespace distbench::api {

// Throws SpecError listing every problem. Errors about the document as a whole
// (YAML syntax, not an object) name the field "<document>".
DistBenchmark parseDistBenchmark(const std::string& yamlText);
// As parseDistBenchmark, with the file's path in place of "<document>".
// Throws std::runtime_error("cannot read PATH: reason") when unreadable.
DistBenchmark loadDistBenchmarkFile(const std::string& path);

// Every field written out, defaults included: the worker's config file.
std::string toYaml(const DistBenchmark& benchmark);
// The same structure as one compact JSON object (API server requests, reports).
std::string toJson(const DistBenchmark& benchmark);

}  // namespace distbench::api
