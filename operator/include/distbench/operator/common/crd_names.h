// The names of the resources the operator serves, as their URLs spell them
// (/apis/<group>/<version>/namespaces/<ns>/<plural>): the one place the
// operator's code, its tests and benchmarks/operator_scale take them from.
// They agree with the CRDs in crds/ (operator/tests/crd_test.cpp) and with
// api::kApiVersion ("distbench.io/v1alpha1").
#pragma once

#include "distbench/api/schedule_spec.h"

namespace distbench::op {

inline constexpr const char* kGroup = "distbench.io";
inline constexpr const char* kVersion = "v1alpha1";
// DistBenchmark.
inline constexpr const char* kPlural = "distbenchmarks";
// DistBenchmarkSchedule: the api library's, which names its CRD.
using api::kSchedulePlural;

}  // namespace distbench::op
