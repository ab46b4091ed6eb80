// The labels on the objects the operator makes for a DistBenchmark. The
// benchmark's name ties each to its resource: the operator's informers watch
// only objects that carry it, and a change to one requeues the benchmark the
// label names. The others say which rank and gang a pod is, and whose run.
#pragma once

namespace distbench::op {

// The benchmark an object belongs to (its name).
inline constexpr const char* kLabelBenchmark = "distbench.io/benchmark";
inline constexpr const char* kLabelRole = "distbench.io/role";
inline constexpr const char* kLabelRank = "distbench.io/rank";
inline constexpr const char* kLabelGang = "distbench.io/gang";  // restart generation
// The resource's UID on every gang pod, and in the selectors of the headless
// Service and the NetworkPolicy: a label nobody can know before the resource
// exists, so no pod planted in advance with the benchmark's name and a role
// label joins the gang's Service or passes its NetworkPolicy.
inline constexpr const char* kLabelRun = "distbench.io/run";

}  // namespace distbench::op
