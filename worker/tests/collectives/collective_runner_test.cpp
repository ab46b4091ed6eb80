#include "distbench/worker/collectives/collective_runner.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <iostream>

#include "distbench/worker/collectives/collective_results.h"
#include "distbench/worker/collectives/collectives_metrics.h"
#include "distbench/worker/common/metrics.h"
#include "support/thread_ranks.h"

namespace distbench::worker {
namespace {

using api::CollectiveOp;
using api::Backend;
using api::Device;
using api::DType;

const std::vector<CollectiveOp> kAllOps{
    CollectiveOp::AllReduce,     CollectiveOp::AllGather, CollectiveOp::Broadcast,
    CollectiveOp::Reduce,        CollectiveOp::Scatter,   CollectiveOp::Gather,
    CollectiveOp::ReduceScatter, CollectiveOp::AllToAll,  CollectiveOp::SendRecv};
const std::vector<DType> kGlooDtypes{DType::Float32, DType::Float64, DType::Float16, DType::Int32,
                                     DType::Int64};

std::vector<double> values(const at::Tensor& t) {
  at::Tensor d = t.to(at::kDouble).contiguous();
  return std::vector<double>(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
}

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

// Every op and Gloo dtype at 8 B .. 4 KiB; a throw from any rank (a wrong
// result included) fails the test.
void runEverything(int world, int warmup) {
  api::CollectivesSpec spec;
  spec.ops = kAllOps;
  spec.dtypes = kGlooDtypes;
  spec.minBytes = 8;
  spec.maxBytes = 4096;
  spec.stepFactor = 8;
  spec.warmupIterations = warmup;
  spec.iterations = 2;
  const auto plan = planCollectives(spec, world);
  ASSERT_GE(plan.size(), kAllOps.size() * kGlooDtypes.size() * 3);
  std::vector<std::vector<std::vector<double>>> perRank(world);
  runRanks(world, "all" + std::to_string(warmup), [&](int rank, ProcessGroup& group) {
    MetricsEndpoint endpoint("collectives-test", "trainer", rank, 0);
    CollectivesRankMetrics metrics(endpoint);
    perRank[rank] = runCollectives(plan, spec, group, &metrics);
  });
  for (int r = 0; r < world; ++r) {
    ASSERT_EQ(perRank[r].size(), plan.size()) << "rank " << r;
    for (size_t i = 0; i < plan.size(); ++i) {
      ASSERT_EQ(perRank[r][i].size(), 2u) << "rank " << r << " case " << i;
      for (double t : perRank[r][i]) EXPECT_GT(t, 0.0);
    }
  }
  // The shape combineRanks expects.
  auto gloo = [](CollectiveOp op) { return implementationOf(op, Backend::Gloo, Device::CPU); };
  EXPECT_EQ(combineRanks(plan, perRank, world, gloo).size(), plan.size());
}

TEST(CollectiveRunner, EveryOpAndDtypeIsCorrectOnTwoRanks) { runEverything(2, 1); }

// Three ranks: chunks of odd counts, and a ring whose send and receive peers
// differ. No warm-up: the first measured iteration is the checked one.
TEST(CollectiveRunner, EveryOpAndDtypeIsCorrectOnThreeRanks) { runEverything(3, 0); }

TEST(CollectiveRunner, ExpectedOutputsByHand) {
  // Inputs: rank r holds (r + 1) + (i % 7).
  const CollectiveCase alltoall{CollectiveOp::AllToAll, DType::Int32, 16, 4};
  // Rank 1 gets elements 2..3 of rank 0 (3, 4) and of rank 1 (4, 5).
  EXPECT_EQ(values(expectedCollectiveOutput(alltoall, 1, 2)), (std::vector<double>{3, 4, 4, 5}));
  const CollectiveCase reduceScatter{CollectiveOp::ReduceScatter, DType::Float16, 8, 4};
  // Rank 1's chunk: (3 + 4), (4 + 5).
  EXPECT_EQ(values(expectedCollectiveOutput(reduceScatter, 1, 2)), (std::vector<double>{7, 9}));
  const CollectiveCase allreduce{CollectiveOp::AllReduce, DType::Float32, 36, 9};
  // 3 ranks: 1 + 2 + 3 plus 3 * (i % 7); index 7 wraps to 0.
  EXPECT_EQ(values(expectedCollectiveOutput(allreduce, 2, 3)),
            (std::vector<double>{6, 9, 12, 15, 18, 21, 24, 6, 9}));
  const CollectiveCase sendrecv{CollectiveOp::SendRecv, DType::Int64, 16, 2};
  EXPECT_EQ(values(expectedCollectiveOutput(sendrecv, 0, 3)), (std::vector<double>{3, 4}));
  const CollectiveCase scatter{CollectiveOp::Scatter, DType::Float64, 48, 6};
  EXPECT_EQ(values(expectedCollectiveOutput(scatter, 2, 3)), (std::vector<double>{5, 6}));
  // Off the root, reduce and gather leave nothing to check.
  const CollectiveCase reduce{CollectiveOp::Reduce, DType::Float32, 16, 4};
  EXPECT_FALSE(expectedCollectiveOutput(reduce, 1, 2).defined());
  EXPECT_TRUE(expectedCollectiveOutput(reduce, 0, 2).defined());
  const CollectiveCase gather{CollectiveOp::Gather, DType::Float32, 16, 4};
  EXPECT_FALSE(expectedCollectiveOutput(gather, 1, 2).defined());
}

TEST(CollectiveRunner, CheckerNamesTheFirstWrongIndex) {
  const CollectiveCase c{CollectiveOp::AllGather, DType::Float16, 24, 12};
  at::Tensor good = expectedCollectiveOutput(c, 1, 3).to(at::kHalf);
  EXPECT_EQ(errorOf([&] { checkCollectiveOutput(c, 1, 3, good); }), "");

  at::Tensor bad = good.clone();
  bad[5].fill_(100);
  bad[9].fill_(100);
  const std::string error = errorOf([&] { checkCollectiveOutput(c, 1, 3, bad); });
  // Chunk 1 (rank 1's) starts at index 4: index 5 holds 2 + 1.
  EXPECT_EQ(error,
            "allgather float16 of 24 B on rank 1 of 3: 2 wrong elements, the first at index 5: "
            "expected 3, got 100");

  EXPECT_NE(errorOf([&] {
              checkCollectiveOutput(c, 1, 3, good.narrow(0, 0, 6));
            }).find("result has 6 elements, expected 12"),
            std::string::npos);
  const CollectiveCase reduce{CollectiveOp::Reduce, DType::Int32, 16, 4};
  EXPECT_EQ(errorOf([&] { checkCollectiveOutput(reduce, 1, 2, at::Tensor()); }), "");
}

TEST(CollectiveRunner, AWrongResultOnOneRankFailsEveryRank) {
  // Rank 1 believes the root broadcasts int32 while it sends float32 bits of
  // the same size: rank 1 sees garbage, the root's own buffer is right.
  api::CollectivesSpec spec;
  spec.warmupIterations = 0;
  spec.iterations = 1;
  auto errors = runRanksCollectingErrors(2, "wrong", [&](int rank, ProcessGroup& group) {
    const DType dtype = rank == 0 ? DType::Float32 : DType::Int32;
    runCollectives({{CollectiveOp::Broadcast, dtype, 64, 16}}, spec, group, nullptr);
  });
  EXPECT_EQ(errors[0], "broadcast float32 of 64 B: wrong result on rank 1");
  EXPECT_NE(errors[1].find("broadcast int32 of 64 B on rank 1 of 2: 16 wrong elements, the first "
                           "at index 0: expected 1, got 1065353216"),
            std::string::npos)
      << errors[1];
}

TEST(CollectiveRunner, RefusesBFloat16OnGloo) {
  api::CollectivesSpec spec;
  auto errors = runRanksCollectingErrors(1, "bf16", [&](int, ProcessGroup& group) {
    runCollectives({{CollectiveOp::AllReduce, DType::BFloat16, 16, 8}}, spec, group, nullptr);
  });
  EXPECT_NE(errors[0].find("bfloat16"), std::string::npos) << errors[0];
}

// Holds the adapter's hasNativeReduceScatter, and so implementationOf,
// against the Gloo this build links: c10d's Gloo refuses reduce_scatter in
// 1.13 and 2.x alike, so the runner emulates it. A LibTorch whose Gloo gains
// one fails here, and the emulation can go.
TEST(CollectiveRunner, GlooHasNoNativeReduceScatter) {
  // One rank: Gloo decides at the call, and no peer's teardown can race it.
  std::vector<std::string> errors =
      runRanksCollectingErrors(1, "rs", [](int, ProcessGroup& g) {
        EXPECT_FALSE(g.hasNativeReduceScatter());
        at::Tensor input = at::ones({4}) * 3;
        at::Tensor output = at::zeros({4});
        g.reduceScatterSum(input, output).wait();
      });
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("does not support reduce_scatter"), std::string::npos) << errors[0];
  EXPECT_EQ(implementationOf(CollectiveOp::ReduceScatter, Backend::Gloo, Device::CPU),
            "allreduce + local slice (c10d's Gloo has no reduce_scatter)");
  EXPECT_EQ(implementationOf(CollectiveOp::ReduceScatter, Backend::NCCL, Device::CUDA),
            "nccl reduce_scatter");
}

// What the report says of each op on each backend: every op named, and Gloo
// on CUDA tensors says it goes through the host.
TEST(CollectiveRunner, ImplementationNamesBackendAndDevice) {
  for (CollectiveOp op : api::CollectivesSpec().ops) {
    EXPECT_EQ(implementationOf(op, Backend::NCCL, Device::CUDA).rfind("nccl ", 0), 0u)
        << api::toString(op);
    const std::string staged = implementationOf(op, Backend::Gloo, Device::CUDA);
    EXPECT_NE(staged.find("host"), std::string::npos) << staged;
    EXPECT_EQ(implementationOf(op, Backend::Gloo, Device::CPU).find("host"), std::string::npos);
  }
}

}  // namespace
}  // namespace distbench::worker
