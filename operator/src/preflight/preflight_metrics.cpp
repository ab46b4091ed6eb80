#include "distbench/operator/preflight/preflight_metrics.h"

#include <prometheus/counter.h>
#include <prometheus/histogram.h>
#include <prometheus/metric_family.h>
#include <prometheus/registry.h>

namespace distbench::op {
namespace {

using prometheus::Counter;
using prometheus::Histogram;

// A check's run is seconds (a small fabric) to an hour (a large one with
// many samples); 1-2-5 steps.
Histogram::BucketBoundaries runBuckets() {
  return {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000};
}

}  // namespace

struct PreflightMetrics::Impl {
  prometheus::Registry registry;
  prometheus::Family<Counter>& checks =
      prometheus::BuildCounter()
          .Name("distbench_preflight_checks_total")
          .Help("Admission checks the preflight gate answered, by state (Ready, Retry, Rejected) "
                "and outcome (Healthy, Slow, Inconclusive, Failed, TimedOut, ...).")
          .Register(registry);
  prometheus::Family<Histogram>& duration =
      prometheus::BuildHistogram()
          .Name("distbench_preflight_check_duration_seconds")
          .Help("From a check's run being created to its answer, by state; 0 for an answer "
                "without a run (no nodes known, one node).")
          .Register(registry);

  Impl() {
    // Every state from the first scrape, so that a rate over the
    // histogram's _count (every answer, 0 s without a run) is 0, not
    // absent, before the first answer: the alert reads it.
    for (const char* state : {"Ready", "Retry", "Rejected"}) {
      duration.Add({{"state", state}}, runBuckets());
    }
  }
};

PreflightMetrics::PreflightMetrics() : impl_(std::make_unique<Impl>()) {}
PreflightMetrics::~PreflightMetrics() = default;

void PreflightMetrics::answered(const PreflightAnswered& a) {
  impl_->checks.Add({{"state", a.state}, {"outcome", a.outcome}}).Increment();
  impl_->duration.Add({{"state", a.state}}, runBuckets()).Observe(a.seconds);
}

std::vector<prometheus::MetricFamily> PreflightMetrics::collect() {
  return impl_->registry.Collect();
}

}  // namespace distbench::op
