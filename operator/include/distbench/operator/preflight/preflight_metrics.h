// The preflight gate's metrics (docs/metrics.md, "Preflight gate"): checks
// answered by state and outcome, and how long a check's run took, which the
// alerting rules (charts/distbench-operator/rules/) read.
#pragma once

#include <memory>
#include <vector>

#include "distbench/operator/preflight/preflight_reconciler.h"

namespace prometheus {
struct MetricFamily;
}

namespace distbench::op {

class PreflightMetrics {
 public:
  PreflightMetrics();
  ~PreflightMetrics();
  PreflightMetrics(const PreflightMetrics&) = delete;
  PreflightMetrics& operator=(const PreflightMetrics&) = delete;

  void answered(const PreflightAnswered& answer);
  std::vector<prometheus::MetricFamily> collect();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace distbench::op
