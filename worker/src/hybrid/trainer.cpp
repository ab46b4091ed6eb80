#include "distbench/worker/hybrid/trainer.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <torch/nn/functional/loss.h>
#include <torch/nn/modules/container/sequential.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>

#include "distbench/api/dense_layers.h"
#include "distbench/worker/comm/ddp_bucketer.h"
#include "distbench/worker/common/progress_reporter.h"
#include "distbench/worker/common/stopwatch.h"
#include "distbench/worker/gpu/step_clock.h"
#include "distbench/worker/hybrid/batch_generator.h"
#include "distbench/worker/hybrid/dense_model.h"
#include "distbench/worker/hybrid/ps_client.h"
#include "distbench/worker/hybrid/ps_link.h"
#include "distbench/worker/hybrid/state_dump.h"
#include "distbench/worker/hybrid/step_phases.h"
#include "distbench/worker/hybrid/wire.h"
#include "distbench/worker/hybrid/wire_buffer.h"

namespace distbench::worker {
namespace {

// The seed's dense stack, initialised on the CPU (so every device starts
// from the same weights) and moved to `device`.
torch::nn::Sequential denseModelOn(const ComputeDevice& device, int64_t inputWidth,
                                   const std::vector<api::DenseLayer>& layers, int64_t seed) {
  torch::nn::Sequential model = buildDenseModel(inputWidth, layers, seed);
  model->to(device.torchDevice());
  return model;
}

class Trainer {
 public:
  Trainer(const WorkerIdentity& id, const api::DistBenchmark& benchmark, Rendezvous& rendezvous,
          const ComputeDevice& device, HybridTrainerMetrics& metrics)
      : id_(id),
        spec_(benchmark.spec.benchmark.hybridDDPRPC),
        global_(rendezvous.global()),
        metrics_(metrics),
        device_(device),
        clock_(device.newClock()),
        layers_(api::parseDenseLayers(spec_.denseLayers)),
        model_(denseModelOn(device, id.numParameterServers * spec_.embeddingDim, layers_,
                            benchmark.spec.benchmark.seed)),
        bucketer_(model_->parameters(), rendezvous.trainers(), benchmark.spec.benchmark.bucketCapMB,
                  clock_),
        client_(connectToParameterServers(id, *rendezvous.store(),
                                          static_cast<size_t>(messageSizes(spec_).reply),
                                          rendezvous.timeouts().rendezvous,
                                          rendezvous.timeouts().peer),
                id.roleIndex, spec_.embeddingDim, messageSizes(spec_), metrics),
        batches_(spec_, benchmark.spec.benchmark.seed, id.roleIndex,
                 api::denseOutputWidth(layers_)),
        trainers_(rendezvous.trainers()) {}

  void run(const TrainerOptions& options) {
    bucketer_.broadcastParameters(0);
    awaitControl(Op::Start);

    const int total = spec_.warmupEpochs + spec_.epochs;
    int64_t step = 0;
    ProgressReporter progress(options.progressLines, "epochs", total);
    progress.advance(0);
    for (int epoch = 0; epoch < total; ++epoch) {
      const bool warmup = epoch < spec_.warmupEpochs;
      // Every trainer starts the measured epochs together.
      if (epoch == spec_.warmupEpochs) trainers_.barrier();
      const auto start = Clock::now();
      int64_t examples = 0;
      PhaseSeconds phases{};
      const EpochTraffic before{client_.bytesSent(), client_.bytesReceived(), allreduceBytes_};
      for (int b = 0; b < spec_.batchesPerEpoch; ++b) {
        examples += trainStep(step, phases);
        heartbeatIfQuiet(step++);
      }
      const double seconds = secondsSince(start);
      for (double& p : phases) p /= std::max(1, spec_.batchesPerEpoch);
      const EpochTraffic traffic{client_.bytesSent() - before.psBytesSent,
                                 client_.bytesReceived() - before.psBytesReceived,
                                 allreduceBytes_ - before.allreduceBytes};
      metrics_.observeEpoch(seconds, examples, warmup);
      reportEpoch({id_.roleIndex, epoch, examples, seconds, warmup, phases, traffic});
      progress.advance();
    }
    client_.done();
    if (!options.dumpStateDir.empty()) {
      std::vector<at::Tensor> params;
      for (const auto& p : model_->parameters()) params.push_back(p.detach().to(at::kCPU));
      saveTensors(params, options.dumpStateDir,
                  "trainer" + std::to_string(id_.roleIndex) + "_dense.pt");
    }
    awaitControl(Op::Finish);
  }

 private:
  // One batch: forward through every shard and the dense stack, backward with
  // overlapped allreduce, gradients to the shards, then the optimizer step.
  // Adds the batch's time in each phase to `phases` (the report's). The
  // metrics keep their own, coarser split (docs/metrics.md): their forward
  // includes the lookups, their optimizer step the push. Phases end on the
  // clock's marks: on a GPU when the device has done the phase's work (a
  // lookup's rows copied in, the backward kernels run), and the step ends
  // once the device has finished the SGD update.
  int64_t trainStep(int64_t step, PhaseSeconds& phases) {
    clock_->beginStep();
    const auto start = Clock::now();
    Batch batch = batches_.next();
    const at::Tensor targets = batch.targets.to(device_.torchDevice());

    const StepClock::Mark lookupStart = clock_->mark();
    std::vector<at::Tensor> lookups = client_.lookup(step, batch.indices, batch.offsets);
    for (auto& t : lookups) t = t.to(device_.torchDevice()).requires_grad_(true);
    const StepClock::Mark denseStart = clock_->mark();
    at::Tensor output = model_->forward(at::cat(lookups, 1));
    at::Tensor loss = torch::nn::functional::cross_entropy(output, targets);
    const StepClock::Mark backwardStart = clock_->mark();

    bucketer_.prepareForBackward();
    loss.backward();
    const StepClock::Mark backwardDone = clock_->mark();

    // The shards' gradient push and step travel while the dense allreduce,
    // launched during backward, finishes; waiting on the shards first keeps
    // their round trips honest, and what is left of the allreduce afterwards
    // is the part overlap did not hide. On a GPU the gradients' copy to the
    // host waits for the backward kernels that made them.
    std::vector<at::Tensor> grads;
    for (auto& t : lookups) grads.push_back(t.grad().to(at::kCPU));
    client_.beginUpdate(step, grads);
    client_.endUpdate();
    const StepClock::Mark pushDone = clock_->mark();

    bucketer_.finishBackward();
    const StepClock::Mark allreduceDone = clock_->mark();
    {
      c10::NoGradGuard noGrad;
      for (auto& p : model_->parameters()) p.add_(p.grad(), -spec_.learningRate);
    }
    const StepClock::Mark end = clock_->mark();
    clock_->settle(end, global_.timeout(), "the device to finish a training step");

    auto between = [this](StepClock::Mark a, StepClock::Mark b) { return clock_->seconds(a, b); };
    add(phases, Phase::Lookup, between(lookupStart, denseStart));
    add(phases, Phase::Forward, between(denseStart, backwardStart));
    add(phases, Phase::Backward, between(backwardStart, backwardDone));
    add(phases, Phase::Push, between(backwardDone, pushDone));
    add(phases, Phase::AllreduceWait, between(pushDone, allreduceDone));
    add(phases, Phase::OptimizerStep, between(allreduceDone, end));
    metrics_.observeForward(between(lookupStart, backwardStart));
    metrics_.observeBackward(between(backwardStart, backwardDone));
    metrics_.observeAllreduceWait(between(pushDone, allreduceDone));
    metrics_.observeOptimizerStep(between(backwardDone, pushDone) + between(allreduceDone, end));
    for (const BucketTiming& b : bucketer_.lastStepTimeline()) {
      if (!std::isnan(b.completed)) metrics_.observeAllreduce(b.completed - b.launched, b.bytes);
      allreduceBytes_ += b.bytes;
    }
    metrics_.observeIteration(secondsSince(start));
    return batch.examples();
  }

  // The master waits on each report for the peer timeout; an epoch longer
  // than a quarter of it sends a heartbeat so the master knows it is alive.
  void heartbeatIfQuiet(int64_t step) {
    const double quiet = std::chrono::duration<double>(global_.timeout()).count() / 4;
    if (secondsSince(lastToMaster_) < quiet) return;
    at::Tensor message = packReport(HeartbeatReport{id_.roleIndex, step}.encode());
    global_.send(message, api::masterRank(), kTagControl).wait();
    lastToMaster_ = Clock::now();
  }

  void reportEpoch(const EpochDoneReport& report) {
    at::Tensor message = packReport(report.encode());
    global_.send(message, api::masterRank(), kTagControl).wait();
    lastToMaster_ = Clock::now();
  }

  void awaitControl(Op expected) {
    at::Tensor header = newMessage(kHeaderBytes);
    global_.recv(header, api::masterRank(), kTagControl).wait();
    const Op got = Signal::decode(readHeader(header)).op;
    if (got != expected) {
      throw std::runtime_error(std::string("trainer: expected ") + toString(expected) +
                               " from the master, got " + toString(got));
    }
  }

  const WorkerIdentity& id_;
  api::HybridDDPRPCSpec spec_;
  ProcessGroup& global_;
  HybridTrainerMetrics& metrics_;
  const ComputeDevice& device_;
  std::shared_ptr<StepClock> clock_;  // the bucketer marks it too
  std::vector<api::DenseLayer> layers_;
  torch::nn::Sequential model_;
  GradientBucketer bucketer_;
  ParameterServerClient client_;
  BatchGenerator batches_;
  ProcessGroup& trainers_;
  Clock::time_point lastToMaster_ = Clock::now();
  int64_t allreduceBytes_ = 0;  // bucket bytes reduced so far (EpochTraffic)
};

}  // namespace

void runHybridTrainer(const WorkerIdentity& identity, const api::DistBenchmark& benchmark,
                      Rendezvous& rendezvous, const ComputeDevice& device,
                      HybridTrainerMetrics& metrics, const TrainerOptions& options) {
  // On failure the trainer is deliberately not freed, as a parameter server
  // is not: its links stay open until the process exits, after the rank has
  // published why it failed. Closing them while unwinding would let a
  // parameter server report "connection reset by trainer1" as the run's
  // verdict, racing the cause (the lost ps0) that trainer1 is about to name.
  auto* trainer = new Trainer(identity, benchmark, rendezvous, device, metrics);
  trainer->run(options);
  delete trainer;
}

}  // namespace distbench::worker
