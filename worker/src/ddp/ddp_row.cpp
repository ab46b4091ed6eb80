#include "distbench/worker/ddp/ddp_row.h"

#include <ATen/ATen.h>
#include <torch/nn/functional/loss.h>
#include <torch/optim/sgd.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "distbench/worker/comm/ddp_bucketer.h"
#include "distbench/worker/comm/process_group.h"
#include "distbench/worker/common/training_metrics.h"
#include "distbench/worker/ddp/models/model_factory.h"
#include "distbench/worker/gpu/compute_device.h"
#include "distbench/worker/gpu/step_clock.h"

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
                          int rank, const ComputeDevice& device, ProcessGroup* group,
                          TrainingMetrics* metrics, const std::function<void()>& betweenIterations,
                          const BucketTimelineSink& buckets) {
  const api::DDPSpec& ddp = spec.benchmark.ddp;
  at::manual_seed(static_cast<uint64_t>(spec.benchmark.seed + rank));
  std::shared_ptr<ImageModel> model = makeImageModel(modelName, ddp.numClasses);
  model->to(device.torchDevice());
  model->train();
  // Drawn on the CPU, so every device trains on the same batch.
  const at::Tensor images =
      at::randn({ddp.batchSize, 3, ddp.imageSize, ddp.imageSize}).to(device.torchDevice());
  const at::Tensor targets =
      at::randint(ddp.numClasses, {ddp.batchSize}, at::kLong).to(device.torchDevice());

  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(ddp.learningRate)
                                                       .momentum(ddp.momentum)
                                                       .weight_decay(ddp.weightDecay));
  const std::shared_ptr<StepClock> clock = device.newClock();
  std::unique_ptr<GradientBucketer> bucketer;
  if (group != nullptr) {
    bucketer = std::make_unique<GradientBucketer>(model->parameters(), *group,
                                                  spec.benchmark.bucketCapMB, clock);
    bucketer->broadcastParameters(0);
  }
  const std::chrono::milliseconds timeout(static_cast<int64_t>(spec.runtime.peerTimeoutSeconds) *
                                          1000);
  const std::string onDevice = "the device to finish a " + modelName + " iteration";

  DdpPhaseSamples samples;
  const int total = ddp.warmupIterations + ddp.iterations;
  for (int i = 0; i < total; ++i) {
    // Replicas start the measured iterations together.
    if (i == ddp.warmupIterations && group != nullptr) group->barrier();
    if (betweenIterations) betweenIterations();
    clock->beginStep();
    const StepClock::Mark start = clock->mark();
    // With DDP the bucketer owns .grad (views into its buckets) and replaces
    // it as each gradient arrives; zero_grad would detach and zero those
    // views, a pass over the model's gradients for nothing.
    if (!bucketer) optimizer.zero_grad();
    const at::Tensor loss = torch::nn::functional::cross_entropy(model->forward(images), targets);
    const StepClock::Mark forwardDone = clock->mark();
    if (bucketer) bucketer->prepareForBackward();
    loss.backward();
    const StepClock::Mark backwardDone = clock->mark();
    if (bucketer) bucketer->finishBackward();
    const StepClock::Mark allreduceDone = clock->mark();
    optimizer.step();
    const StepClock::Mark end = clock->mark();
    clock->settle(end, timeout, onDevice);

    if (metrics != nullptr) metrics->observeExamples(ddp.batchSize);
    if (bucketer && metrics != nullptr) {
      for (const BucketTiming& b : bucketer->lastStepTimeline()) {
        if (!std::isnan(b.completed)) metrics->observeAllreduce(b.completed - b.launched, b.bytes);
      }
    }
    if (i < ddp.warmupIterations) continue;
    samples.iteration.push_back(clock->seconds(start, end));
    samples.forward.push_back(clock->seconds(start, forwardDone));
    samples.backward.push_back(clock->seconds(forwardDone, backwardDone));
    samples.allreduceWait.push_back(clock->seconds(backwardDone, allreduceDone));
    samples.optimizerStep.push_back(clock->seconds(allreduceDone, end));
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
