// The DistBenchmarks the operator itself creates (a schedule's runs, the
// preflight gate's check runs), as the API server takes them.
#pragma once

#include <cpprest/json.h>

#include <string>

#include "distbench/api/benchmark_spec.h"

namespace distbench::op {

// The DistBenchmark collection of `ns`, or one of them.
std::string benchmarksPath(const std::string& ns, const std::string& name = "");

// `run` as the object to create: its spec, its name, namespace, labels and
// annotations, and `owner` as its one owner reference.
web::json::value benchmarkObject(const api::DistBenchmark& run, const web::json::value& owner);

}  // namespace distbench::op
