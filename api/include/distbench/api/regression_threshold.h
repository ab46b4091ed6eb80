// The regression threshold: a row regresses when its median is slower than
// its baseline's by more than this many percent and the bootstrap interval of
// the change lies above 0 (report/report_diff.h). One default and one rule for
// every place that takes it: a DistBenchmark's and a DistBenchmarkSchedule's
// spec.baseline.thresholdPercent and `distbench diff`/`report` --threshold,
// so a value one of them accepts the others accept too.
//
// Not spec.benchmark.fabric.thresholdPercent: that is the fabric check's
// smallest slowdown of a node or link worth naming (FabricSpec), another
// quantity with its own rule.
#pragma once

#include <cmath>

namespace distbench::api {

inline constexpr double kDefaultRegressionThresholdPercent = 5;

// What the rule accepts, for error messages: "must be " + this.
inline constexpr const char* kRegressionThresholdRule = "a percentage ≥ 0";

// Finite and ≥ 0. 0 is a threshold too: then any slowdown whose interval
// lies above 0 regresses (the interval, not the threshold, keeps noise out).
inline bool isRegressionThresholdPercent(double percent) {
  return std::isfinite(percent) && percent >= 0;
}

}  // namespace distbench::api
