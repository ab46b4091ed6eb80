#include "ddp/ddp_row.h"

#include <ATen/ATen.h>
#include <torch/nn/functional/loss.h>
#include <torch/optim/sgd.h>

#include <memory>
#include <stdexcept>

#include "comm/ddp_bucketer.h"
#include "comm/process_group.h"
#include "common/stopwatch.h"
#include "common/training_metrics.h"
#include "ddp/models/image_model.h"

namespace distbench::worker {

std::vector<double> DdpPhaseSamples::flatten() const {
  std::vector<double> flat;
  for (const auto* series : {&iteration, &forward, &backward, &allreduceWait, &optimizerStep}) {
    flat.insert(flat.end(), series->begin(), series->end());
  }
  return flat;
}

DdpPhaseSamples DdpPhaseSamples::unflatten(const std::vector<double>& flat, int iterations) {
  if (flat.size() != static_cast<size_t>(5 * iterations)) {
    throw std::runtime_error("DDP results: expected " + std::to_string(5 * iterations) +
                             " values, got " + std::to_string(flat.size()));
  }
  DdpPhaseSamples s;
  auto take = [&](int i) {
    return std::vector<double>(flat.begin() + i * iterations, flat.begin() + (i + 1) * iterations);
  };
  s.iteration = take(0);
  s.forward = take(1);
  s.backward = take(2);
  s.allreduceWait = take(3);
  s.optimizerStep = take(4);
  return s;
}

DdpPhaseSamples runDdpRow(const api::DistBenchmarkSpec& spec, const std::string& modelName,
                          int rank, ProcessGroup* group, TrainingMetrics* metrics,
                          const std::function<void()>& betweenIterations,
                          const BucketTimelineSink& buckets) {
  const api::DDPSpec& ddp = spec.benchmark.ddp;
  at::manual_seed(static_cast<uint64_t>(spec.benchmark.seed + rank));
  std::shared_ptr<ImageModel> model = makeImageModel(modelName, ddp.numClasses);
  model->train();
  const at::Tensor images = at::randn({ddp.batchSize, 3, ddp.imageSize, ddp.imageSize});
  const at::Tensor targets = at::randint(ddp.numClasses, {ddp.batchSize}, at::kLong);

  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(ddp.learningRate)
                                                       .momentum(ddp.momentum)
                                                       .weight_decay(ddp.weightDecay));
  std::unique_ptr<GradientBucketer> bucketer;
  if (group != nullptr) {
    bucketer =
        std::make_unique<GradientBucketer>(model->parameters(), *group, spec.benchmark.bucketCapMB,
                                           [metrics](double seconds, int64_t bytes) {
                                             if (metrics != nullptr)
                                               metrics->observeAllreduce(seconds, bytes);
                                           });
    bucketer->broadcastParameters(0);
  }

  DdpPhaseSamples samples;
  const int total = ddp.warmupIterations + ddp.iterations;
  for (int i = 0; i < total; ++i) {
    // Replicas start the measured iterations together.
    if (i == ddp.warmupIterations && group != nullptr) group->barrier();
    if (betweenIterations) betweenIterations();
    const auto start = Clock::now();
    // With DDP the bucketer owns .grad (views into its buckets) and replaces
    // it as each gradient arrives; zero_grad would detach and zero those
    // views, a pass over the model's gradients for nothing.
    if (!bucketer) optimizer.zero_grad();
    const at::Tensor loss = torch::nn::functional::cross_entropy(model->forward(images), targets);
    const auto forwardDone = Clock::now();
    if (bucketer) bucketer->prepareForBackward();
    loss.backward();
    const auto backwardDone = Clock::now();
    if (bucketer) bucketer->finishBackward();
    const auto allreduceDone = Clock::now();
    optimizer.step();
    const auto end = Clock::now();

    auto seconds = [](Clock::time_point a, Clock::time_point b) {
      return std::chrono::duration<double>(b - a).count();
    };
    if (metrics != nullptr) metrics->observeExamples(ddp.batchSize);
    if (i < ddp.warmupIterations) continue;
    samples.iteration.push_back(seconds(start, end));
    samples.forward.push_back(seconds(start, forwardDone));
    samples.backward.push_back(seconds(forwardDone, backwardDone));
    samples.allreduceWait.push_back(seconds(backwardDone, allreduceDone));
    samples.optimizerStep.push_back(seconds(allreduceDone, end));
    if (bucketer && buckets) buckets(bucketer->lastStepTimeline());
    if (metrics != nullptr) {
      metrics->observeIteration(samples.iteration.back());
      metrics->observeForward(samples.forward.back());
      metrics->observeBackward(samples.backward.back());
      metrics->observeAllreduceWait(samples.allreduceWait.back());
      metrics->observeOptimizerStep(samples.optimizerStep.back());
    }
  }
  return samples;
}

}  // namespace distbench::worker
