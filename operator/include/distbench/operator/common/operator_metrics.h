// The operator's Prometheus metrics (docs/metrics.md, "Operator metrics"):
// reconcile latency and errors, the work queue's signals as client-go names
// them, informer watch restarts and re-lists, leadership, and benchmarks by
// phase. scrape() renders them for /metrics (http_endpoints.h); nothing here
// serves HTTP.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "distbench/kube/work_queue_observer.h"

namespace prometheus {
struct MetricFamily;
}

namespace distbench::kube {
class Informer;
}

namespace distbench::op {

enum class ReconcileOutcome {
  Success,  // done, nothing to come back for
  Error,    // failed; the key goes back rate-limited
  Requeue,  // succeeded but asked to look again later (a pod still starting)
};

class OperatorMetrics : public kube::WorkQueueObserver {
 public:
  OperatorMetrics();
  ~OperatorMetrics() override;
  OperatorMetrics(const OperatorMetrics&) = delete;
  OperatorMetrics& operator=(const OperatorMetrics&) = delete;

  // One reconcile of one key; Error also counts in reconcile_errors_total.
  void observeReconcile(std::chrono::duration<double> seconds, ReconcileOutcome outcome);

  // The work queue's hooks (share this object as WorkQueueOptions::observer).
  // The queue calls them with its lock held; each is an atomic update or one
  // histogram observation.
  void depth(std::size_t ready) override;
  void added() override;
  void queueLatency(kube::Clock::Duration waited) override;
  void workDuration(kube::Clock::Duration worked) override;
  void retried() override;

  // watch_restarts_total and relists_total{resource} follow the informer's
  // own counters, read at each scrape. Several informers may share a
  // resource label; their counts add up. The informer must outlive every
  // later scrape().
  void addInformer(const std::string& resource, const kube::Informer& informer);

  void setLeader(bool leading);
  // Benchmarks per status.phase; Pending, Running, Succeeded and Failed are
  // always present, and any phase missing from `counts` reads 0.
  void setBenchmarkPhases(const std::map<std::string, int>& counts);

  // Families built afresh at each scrape (schedule_metrics.h), after this
  // object's own; `source` must stay callable for every later scrape().
  void addFamilies(std::function<std::vector<prometheus::MetricFamily>()> source);

  // Prometheus text exposition format 0.0.4. Safe from several threads.
  std::string scrape();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace distbench::op
