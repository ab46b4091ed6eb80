#include "distbench/worker/common/training_metrics.h"

#include "distbench/worker/common/metric_families.h"

namespace distbench::worker {

using prometheus::Counter;
using prometheus::Family;
using prometheus::Histogram;

struct TrainingMetrics::Impl {
  Family<Histogram>* iterationFamily = nullptr;
  Family<Histogram>* forwardFamily = nullptr;
  Family<Histogram>* backwardFamily = nullptr;
  Family<Histogram>* allreduceFamily = nullptr;
  Family<Histogram>* allreduceWaitFamily = nullptr;
  Family<Histogram>* optimizerFamily = nullptr;
  Family<Counter>* examplesFamily = nullptr;
  Family<Counter>* allreduceBytesFamily = nullptr;

  Histogram* iteration = nullptr;
  Histogram* forward = nullptr;
  Histogram* backward = nullptr;
  Histogram* allreduce = nullptr;
  Histogram* allreduceWait = nullptr;
  Histogram* optimizer = nullptr;
  Counter* examples = nullptr;
  Counter* allreduceBytes = nullptr;
};

TrainingMetrics::TrainingMetrics(const MetricsEndpoint& endpoint, const std::string& forwardHelp,
                                 const std::string& optimizerHelp)
    : impl_(std::make_unique<Impl>()) {
  auto& m = *impl_;
  m.iterationFamily =
      &histogramFamily(endpoint, "distbench_iteration_seconds",
                       "Wall time of one batch: forward, backward, allreduce, step.");
  m.forwardFamily = &histogramFamily(endpoint, "distbench_forward_seconds", forwardHelp);
  m.backwardFamily = &histogramFamily(endpoint, "distbench_backward_seconds",
                                      "Backward pass (DDP allreduces overlap it).");
  m.allreduceFamily =
      &histogramFamily(endpoint, "distbench_allreduce_seconds",
                       "One DDP gradient bucket's allreduce, launch to completion.");
  m.allreduceWaitFamily =
      &histogramFamily(endpoint, "distbench_allreduce_wait_seconds",
                       "Allreduce time left after backward: what overlap did not hide.");
  m.optimizerFamily = &histogramFamily(endpoint, "distbench_optimizer_step_seconds", optimizerHelp);
  m.examplesFamily = &counterFamily(endpoint, "distbench_examples_total",
                                    "Training examples processed, warm-up included.");
  m.allreduceBytesFamily =
      &counterFamily(endpoint, "distbench_allreduce_bytes_total", "Bytes allreduced by DDP.");
}

TrainingMetrics::~TrainingMetrics() = default;

void TrainingMetrics::selectSeries(const std::map<std::string, std::string>& extra) {
  auto& m = *impl_;
  m.iteration = &m.iterationFamily->Add(extra, secondsBuckets());
  m.forward = &m.forwardFamily->Add(extra, secondsBuckets());
  m.backward = &m.backwardFamily->Add(extra, secondsBuckets());
  m.allreduce = &m.allreduceFamily->Add(extra, secondsBuckets());
  m.allreduceWait = &m.allreduceWaitFamily->Add(extra, secondsBuckets());
  m.optimizer = &m.optimizerFamily->Add(extra, secondsBuckets());
  m.examples = &m.examplesFamily->Add(extra);
  m.allreduceBytes = &m.allreduceBytesFamily->Add(extra);
}

void TrainingMetrics::observeIteration(double s) { impl_->iteration->Observe(s); }
void TrainingMetrics::observeExamples(int64_t examples) {
  impl_->examples->Increment(static_cast<double>(examples));
}
void TrainingMetrics::observeForward(double s) { impl_->forward->Observe(s); }
void TrainingMetrics::observeBackward(double s) { impl_->backward->Observe(s); }
void TrainingMetrics::observeAllreduce(double s, int64_t bytes) {
  impl_->allreduce->Observe(s);
  impl_->allreduceBytes->Increment(static_cast<double>(bytes));
}
void TrainingMetrics::observeAllreduceWait(double s) { impl_->allreduceWait->Observe(s); }
void TrainingMetrics::observeOptimizerStep(double s) { impl_->optimizer->Observe(s); }

}  // namespace distbench::worker
