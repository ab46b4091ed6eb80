// Semantic checks on a parsed DistBenchmark (ranges, names, consistency).
#pragma once

#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "distbench/api/spec_error.h"

namespace distbench::api {

std::vector<FieldError> validate(const DistBenchmark& benchmark);
// Throws SpecError when validate() finds anything.
void validateOrThrow(const DistBenchmark& benchmark);

}  // namespace distbench::api
