#include "distbench/operator/common/operator_metrics.h"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/metric_family.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <mutex>
#include <vector>

#include "distbench/kube/informer.h"

namespace distbench::op {
namespace {

using prometheus::Counter;
using prometheus::Gauge;
using prometheus::Histogram;

// 1-2-5 steps from 10^firstExponent to 10 s, spelled as decimal literals so
// that the le labels print as written (no 0.0020000000000000001).
Histogram::BucketBoundaries secondsBuckets(int firstExponent) {
  Histogram::BucketBoundaries bounds;
  for (int e = firstExponent; e <= 0; ++e) {
    for (const char* mantissa : {"1", "2", "5"}) {
      bounds.push_back(std::stod(std::string(mantissa) + "e" + std::to_string(e)));
    }
  }
  bounds.push_back(10);
  return bounds;
}

double seconds(kube::Clock::Duration d) { return std::chrono::duration<double>(d).count(); }

const char* const kPhases[] = {"Pending", "Running", "Succeeded", "Failed"};

}  // namespace

struct OperatorMetrics::Impl {
  prometheus::Registry registry;

  // A reconcile is an API round trip or a few: from a millisecond to the
  // client's timeouts.
  prometheus::Family<Histogram>& reconcileFamily =
      prometheus::BuildHistogram()
          .Name("distbench_operator_reconcile_duration_seconds")
          .Help("Time to reconcile one DistBenchmark, by result.")
          .Register(registry);
  Histogram& reconcileSuccess = reconcileFamily.Add({{"result", "success"}}, secondsBuckets(-3));
  Histogram& reconcileError = reconcileFamily.Add({{"result", "error"}}, secondsBuckets(-3));
  Histogram& reconcileRequeue = reconcileFamily.Add({{"result", "requeue"}}, secondsBuckets(-3));
  Counter& reconcileErrors = prometheus::BuildCounter()
                                 .Name("distbench_operator_reconcile_errors_total")
                                 .Help("Reconciles that failed.")
                                 .Register(registry)
                                 .Add({});

  Gauge& depth = prometheus::BuildGauge()
                     .Name("distbench_operator_workqueue_depth")
                     .Help("Keys waiting in the work queue, ready to be handed out.")
                     .Register(registry)
                     .Add({});
  Counter& adds = prometheus::BuildCounter()
                      .Name("distbench_operator_workqueue_adds_total")
                      .Help("Keys that became due in the work queue (duplicates absorbed).")
                      .Register(registry)
                      .Add({});
  // An idle queue hands a key out within microseconds; a busy one keeps it
  // waiting behind the workers.
  Histogram& queueDuration =
      prometheus::BuildHistogram()
          .Name("distbench_operator_workqueue_queue_duration_seconds")
          .Help("Time a key waited in the work queue between becoming due and being taken.")
          .Register(registry)
          .Add({}, secondsBuckets(-5));
  Histogram& workDuration =
      prometheus::BuildHistogram()
          .Name("distbench_operator_workqueue_work_duration_seconds")
          .Help("Time from taking a key from the work queue to marking it done.")
          .Register(registry)
          .Add({}, secondsBuckets(-3));
  Counter& retries = prometheus::BuildCounter()
                         .Name("distbench_operator_workqueue_retries_total")
                         .Help("Keys put back in the work queue with a delay or rate limit.")
                         .Register(registry)
                         .Add({});

  prometheus::Family<Counter>& watchRestartsFamily =
      prometheus::BuildCounter()
          .Name("distbench_operator_watch_restarts_total")
          .Help("Informer watches that ended and were restarted, by resource.")
          .Register(registry);
  prometheus::Family<Counter>& relistsFamily =
      prometheus::BuildCounter()
          .Name("distbench_operator_relists_total")
          .Help("Informer re-lists after a watch fell too far behind (410 Gone), by resource.")
          .Register(registry);

  Gauge& leader = prometheus::BuildGauge()
                      .Name("distbench_operator_leader")
                      .Help("1 while this replica holds the leader lease, else 0.")
                      .Register(registry)
                      .Add({});
  prometheus::Family<Gauge>& benchmarksFamily =
      prometheus::BuildGauge()
          .Name("distbench_operator_benchmarks")
          .Help("DistBenchmarks in the informer cache, by status.phase.")
          .Register(registry);

  // What the informers had counted at the last scrape, so that each scrape
  // adds only what is new.
  struct Watched {
    const kube::Informer* informer;
    Counter* restarts;
    Counter* relists;
    int64_t restartsSeen = 0;
    int64_t relistsSeen = 0;
  };
  std::mutex informersMutex;
  std::vector<Watched> informers;

  std::mutex phasesMutex;
  std::map<std::string, Gauge*> phases;

  std::mutex sourcesMutex;
  std::vector<std::function<std::vector<prometheus::MetricFamily>()>> sources;

  Impl() {
    for (const char* phase : kPhases) phases[phase] = &benchmarksFamily.Add({{"phase", phase}});
  }

  void refreshInformers() {
    std::lock_guard<std::mutex> lock(informersMutex);
    for (Watched& w : informers) {
      const int64_t restarts = w.informer->watchRestarts();
      const int64_t relists = w.informer->relists();
      if (restarts > w.restartsSeen)
        w.restarts->Increment(static_cast<double>(restarts - w.restartsSeen));
      if (relists > w.relistsSeen)
        w.relists->Increment(static_cast<double>(relists - w.relistsSeen));
      w.restartsSeen = restarts;
      w.relistsSeen = relists;
    }
  }
};

OperatorMetrics::OperatorMetrics() : impl_(std::make_unique<Impl>()) {}
OperatorMetrics::~OperatorMetrics() = default;

void OperatorMetrics::observeReconcile(std::chrono::duration<double> seconds,
                                       ReconcileOutcome outcome) {
  switch (outcome) {
    case ReconcileOutcome::Success:
      impl_->reconcileSuccess.Observe(seconds.count());
      break;
    case ReconcileOutcome::Error:
      impl_->reconcileError.Observe(seconds.count());
      impl_->reconcileErrors.Increment();
      break;
    case ReconcileOutcome::Requeue:
      impl_->reconcileRequeue.Observe(seconds.count());
      break;
  }
}

void OperatorMetrics::depth(std::size_t ready) { impl_->depth.Set(static_cast<double>(ready)); }
void OperatorMetrics::added() { impl_->adds.Increment(); }
void OperatorMetrics::queueLatency(kube::Clock::Duration waited) {
  impl_->queueDuration.Observe(seconds(waited));
}
void OperatorMetrics::workDuration(kube::Clock::Duration worked) {
  impl_->workDuration.Observe(seconds(worked));
}
void OperatorMetrics::retried() { impl_->retries.Increment(); }

void OperatorMetrics::addInformer(const std::string& resource, const kube::Informer& informer) {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> lock(m.informersMutex);
  // Starting from zero rather than the informer's current counts: one added
  // late still reports every restart it has had.
  m.informers.push_back({&informer, &m.watchRestartsFamily.Add({{"resource", resource}}),
                         &m.relistsFamily.Add({{"resource", resource}})});
}

void OperatorMetrics::setLeader(bool leading) { impl_->leader.Set(leading ? 1 : 0); }

void OperatorMetrics::setBenchmarkPhases(const std::map<std::string, int>& counts) {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> lock(m.phasesMutex);
  for (const auto& [phase, count] : counts) {
    auto it = m.phases.find(phase);
    if (it == m.phases.end())
      it = m.phases.emplace(phase, &m.benchmarksFamily.Add({{"phase", phase}})).first;
    it->second->Set(count);
  }
  for (const auto& [phase, gauge] : m.phases) {
    if (!counts.count(phase)) gauge->Set(0);
  }
}

void OperatorMetrics::addFamilies(std::function<std::vector<prometheus::MetricFamily>()> source) {
  std::lock_guard<std::mutex> lock(impl_->sourcesMutex);
  impl_->sources.push_back(std::move(source));
}

std::string OperatorMetrics::scrape() {
  impl_->refreshInformers();
  std::vector<prometheus::MetricFamily> families = impl_->registry.Collect();
  {
    std::lock_guard<std::mutex> lock(impl_->sourcesMutex);
    for (const auto& source : impl_->sources)
      for (prometheus::MetricFamily& f : source()) families.push_back(std::move(f));
  }
  return prometheus::TextSerializer().Serialize(families);
}

}  // namespace distbench::op
