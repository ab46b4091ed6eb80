// The worker on a real GPU (ctest label `gpu`): collectives on NCCL and on
// Gloo with CUDA tensors, checked on the device; DDP's buckets and phases on
// the device; the step clock against device work. Each test skips itself,
// saying why, where there is no GPU or no CUDA LibTorch (gpu_test_support.h).
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>

#include <chrono>
#include <cmath>
#include <thread>
#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>

#include "distbench/worker/collectives/collective_plan.h"
#include "distbench/worker/collectives/collective_runner.h"
#include "distbench/worker/comm/ddp_bucketer.h"
#include "distbench/worker/ddp/ddp_row.h"
#include "distbench/worker/gpu/compute_device.h"
#include "distbench/worker/gpu/step_clock.h"
#include "gpu/gpu_test_support.h"
#include "support/thread_ranks.h"

namespace distbench::worker {
namespace {

using api::CollectiveOp;
using api::DType;

GroupOptions onGpu(api::Backend backend, int device = 0) {
  GroupOptions options = loopbackGloo();
  options.backend = backend;
  options.device = ComputeDevice::cuda(device);
  return options;
}

api::CollectivesSpec sweep(std::vector<DType> dtypes, int64_t maxBytes) {
  api::CollectivesSpec spec;  // every op
  spec.dtypes = std::move(dtypes);
  spec.minBytes = 1024;
  spec.maxBytes = maxBytes;
  spec.stepFactor = 16;
  spec.warmupIterations = 1;
  spec.iterations = 2;
  return spec;
}

// Every op, in float32, float16 and bfloat16, each result checked on the
// device by the runner itself (it throws on the first wrong element).
TEST(GpuCollectives, NcclEveryOpAndDtypeOnOneRank) {
  DISTBENCH_SKIP_WITHOUT_GPUS(1);
  const api::CollectivesSpec spec =
      sweep({DType::Float32, DType::Float16, DType::BFloat16}, 4 << 20);
  const std::vector<CollectiveCase> plan = planCollectives(spec, 1);
  runRanks(
      1, "nccl1",
      [&](int, ProcessGroup& group) {
        EXPECT_EQ(group.describeBackend(), "nccl");
        EXPECT_TRUE(group.hasNativeReduceScatter());
        const auto seconds = runCollectives(plan, spec, group, nullptr);
        ASSERT_EQ(seconds.size(), plan.size());
        for (const auto& s : seconds)
          for (double t : s) EXPECT_GT(t, 0.0);
      },
      onGpu(api::Backend::NCCL));
}

// Several ranks on one GPU, as the lent GPU machine has: Gloo stages the
// tensors through host memory.
TEST(GpuCollectives, GlooOnCudaTensorsTwoRanksShareOneGpu) {
  DISTBENCH_SKIP_WITHOUT_GPUS(1);
  const api::CollectivesSpec spec = sweep({DType::Float32, DType::Float16}, 1 << 20);
  const std::vector<CollectiveCase> plan = planCollectives(spec, 2);
  runRanks(
      2, "gloocuda",
      [&](int, ProcessGroup& group) {
        EXPECT_FALSE(group.hasNativeReduceScatter());
        runCollectives(plan, spec, group, nullptr);
      },
      onGpu(api::Backend::Gloo));
}

TEST(GpuCollectives, NcclTwoRanksOnTwoGpus) {
  DISTBENCH_SKIP_WITHOUT_GPUS(2);
  const api::CollectivesSpec spec =
      sweep({DType::Float32, DType::Float16, DType::BFloat16}, 4 << 20);
  const std::vector<CollectiveCase> plan = planCollectives(spec, 2);
  // Each rank on its own GPU: a group per thread with its own device.
  std::vector<std::string> results(2);
  std::vector<std::thread> threads;
  auto store = c10::make_intrusive<c10d::HashStore>();
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&, r] {
      try {
        ProcessGroup group(c10::make_intrusive<c10d::PrefixStore>("nccl2gpus", store), r, 2,
                           onGpu(api::Backend::NCCL, r), [](int k) { return std::to_string(k); });
        runCollectives(plan, spec, group, nullptr);
      } catch (const std::exception& e) {
        results[r] = e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(results[0], "");
  EXPECT_EQ(results[1], "");
}

torch::nn::Sequential stackOn(const ComputeDevice& device, int64_t seed) {
  torch::manual_seed(static_cast<uint64_t>(seed));
  torch::nn::Sequential model(torch::nn::Linear(16, 64), torch::nn::Linear(64, 32),
                              torch::nn::Linear(32, 4));
  model->to(device.torchDevice());
  return model;
}

// DDP's contract on the device: replicas start from rank 0's weights, and
// after backward every replica's .grad is the mean of the local gradients.
TEST(GpuDdp, BucketsAverageGradientsOnTheDevice) {
  DISTBENCH_SKIP_WITHOUT_GPUS(1);
  std::vector<std::vector<at::Tensor>> local(2), ddp(2);
  runRanks(
      2, "ddpcuda",
      [&](int rank, ProcessGroup& group) {
        auto model = stackOn(group.device(), 100 + rank);
        GradientBucketer bucketer(model->parameters(), group, 0.001,
                                  group.device().newClock());
        bucketer.broadcastParameters(0);
        torch::manual_seed(rank);
        at::Tensor x = at::randn({5, 16}).to(group.device().torchDevice());
        // On a hook-free twin: a leaf's hooks run for autograd::grad too.
        auto twin = std::dynamic_pointer_cast<torch::nn::SequentialImpl>(model->clone());
        at::Tensor twinLoss = twin->forward(x).pow(2).sum();
        for (auto& g : torch::autograd::grad({twinLoss}, twin->parameters())) {
          local[rank].push_back(g.to(at::kCPU));
        }
        at::Tensor loss = model->forward(x).pow(2).sum();
        bucketer.prepareForBackward();
        loss.backward();
        bucketer.finishBackward();
        group.device().synchronize(std::chrono::seconds(30), "the test's backward");
        for (auto& p : model->parameters()) {
          EXPECT_TRUE(p.grad().is_cuda());
          ddp[rank].push_back(p.grad().to(at::kCPU));
        }
      },
      onGpu(api::Backend::Gloo));
  ASSERT_EQ(ddp[0].size(), ddp[1].size());
  for (size_t i = 0; i < ddp[0].size(); ++i) {
    EXPECT_TRUE(at::equal(ddp[0][i], ddp[1][i])) << "replicas differ at " << i;
    EXPECT_TRUE(at::allclose(ddp[0][i], (local[0][i] + local[1][i]) / 2, 1e-4, 1e-5)) << i;
  }
}

// A DDP row on the GPU over NCCL: every phase measured on the device, none
// negative, and together no longer than the iteration they split.
TEST(GpuDdp, RowPhasesAddUpToTheIteration) {
  DISTBENCH_SKIP_WITHOUT_GPUS(1);
  api::DistBenchmarkSpec spec;
  spec.benchmark.ddp.batchSize = 8;
  spec.benchmark.ddp.imageSize = 32;
  spec.benchmark.ddp.warmupIterations = 2;
  spec.benchmark.ddp.iterations = 5;
  runRanks(
      1, "ddprow",
      [&](int, ProcessGroup& group) {
        for (ProcessGroup* g : {static_cast<ProcessGroup*>(nullptr), &group}) {
          const DdpPhaseSamples s =
              runDdpRow(spec, "resnet18", 0, group.device(), g, nullptr);
          ASSERT_EQ(s.iteration.size(), 5u);
          for (size_t i = 0; i < s.iteration.size(); ++i) {
            const double parts = s.forward[i] + s.backward[i] + s.allreduceWait[i] +
                                 s.optimizerStep[i];
            EXPECT_GT(s.forward[i], 0.0);
            EXPECT_GT(s.backward[i], 0.0);
            EXPECT_GE(s.allreduceWait[i], 0.0);
            EXPECT_NEAR(parts, s.iteration[i], 1e-4) << "iteration " << i;
          }
        }
      },
      onGpu(api::Backend::NCCL));
}

// The clock reads the device: a phase ends when the GPU has finished its
// kernels, long after the calls that queued them returned.
TEST(GpuClock, MeasuresDeviceWorkNotItsLaunch) {
  DISTBENCH_SKIP_WITHOUT_GPUS(1);
  const ComputeDevice gpu = ComputeDevice::cuda(0);
  const at::Tensor a = at::randn({4096, 4096}, at::TensorOptions().device(gpu.torchDevice()));
  const std::shared_ptr<StepClock> clock = gpu.newClock();
  at::Tensor b = a;
  b = at::matmul(b, a);  // warm up cuBLAS outside the timing
  gpu.synchronize(std::chrono::seconds(30), "warm-up");
  clock->beginStep();
  const auto launchStart = std::chrono::steady_clock::now();
  const StepClock::Mark start = clock->mark();
  for (int i = 0; i < 40; ++i) b = at::matmul(b, a) / 64.0;
  const StepClock::Mark end = clock->mark();
  const double launch =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - launchStart).count();
  clock->settle(end, std::chrono::seconds(60), "the matmuls");
  const double device = clock->seconds(start, end);
  EXPECT_GT(device, launch) << "device " << device << " s, launch " << launch << " s";
  EXPECT_TRUE(std::isfinite(b.sum().item<double>()));
}

}  // namespace
}  // namespace distbench::worker
