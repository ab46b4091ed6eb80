// The label that ties an object the operator creates to its DistBenchmark.
// The operator's informers watch only objects that carry it, and a change to
// one requeues the benchmark the label names.
#pragma once

namespace distbench::op {

// The label that marks objects the operator owns, for their benchmark.
inline constexpr const char* kBenchmarkLabel = "distbench.io/benchmark";

}  // namespace distbench::op
