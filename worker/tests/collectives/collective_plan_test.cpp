#include "distbench/worker/collectives/collective_plan.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace distbench::worker {
namespace {

using api::CollectiveOp;
using api::DType;

api::CollectivesSpec spec(std::vector<CollectiveOp> ops, std::vector<DType> dtypes,
                          int64_t minBytes, int64_t maxBytes, int64_t factor) {
  api::CollectivesSpec s;
  s.ops = std::move(ops);
  s.dtypes = std::move(dtypes);
  s.minBytes = minBytes;
  s.maxBytes = maxBytes;
  s.stepFactor = factor;
  return s;
}

TEST(CollectivePlan, GeometricSizesUpToMaxInclusive) {
  auto plan = planCollectives(spec({CollectiveOp::AllReduce}, {DType::Float32}, 1024, 65536, 4), 4);
  std::vector<CollectiveCase> expected{{CollectiveOp::AllReduce, DType::Float32, 1024, 256},
                                       {CollectiveOp::AllReduce, DType::Float32, 4096, 1024},
                                       {CollectiveOp::AllReduce, DType::Float32, 16384, 4096},
                                       {CollectiveOp::AllReduce, DType::Float32, 65536, 16384}};
  EXPECT_EQ(plan, expected);
}

TEST(CollectivePlan, StopsBeforeExceedingMax) {
  auto plan = planCollectives(spec({CollectiveOp::Broadcast}, {DType::Int64}, 100, 1000, 3), 2);
  // 100, 300, 900 requested; 2700 > 1000. Rounded to whole 8-byte elements.
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_EQ(plan[0].bytes, 96);
  EXPECT_EQ(plan[0].elements, 12);
  EXPECT_EQ(plan[1].bytes, 296);
  EXPECT_EQ(plan[2].bytes, 896);
  EXPECT_EQ(plan[2].elements, 112);
}

TEST(CollectivePlan, OrderIsOpThenDtypeThenSize) {
  auto plan = planCollectives(spec({CollectiveOp::SendRecv, CollectiveOp::AllReduce},
                                   {DType::Float64, DType::Int32}, 64, 128, 2),
                              2);
  std::vector<CollectiveCase> expected{{CollectiveOp::SendRecv, DType::Float64, 64, 8},
                                       {CollectiveOp::SendRecv, DType::Float64, 128, 16},
                                       {CollectiveOp::SendRecv, DType::Int32, 64, 16},
                                       {CollectiveOp::SendRecv, DType::Int32, 128, 32},
                                       {CollectiveOp::AllReduce, DType::Float64, 64, 8},
                                       {CollectiveOp::AllReduce, DType::Float64, 128, 16},
                                       {CollectiveOp::AllReduce, DType::Int32, 64, 16},
                                       {CollectiveOp::AllReduce, DType::Int32, 128, 32}};
  EXPECT_EQ(plan, expected);
}

TEST(CollectivePlan, ChunkedOpsRoundDownToWholeChunksPerRank) {
  for (CollectiveOp op : {CollectiveOp::AllGather, CollectiveOp::Gather, CollectiveOp::AllToAll,
                          CollectiveOp::ReduceScatter, CollectiveOp::Scatter}) {
    // 1000 B = 250 floats; 3 ranks: 83 per chunk, 249 in all.
    auto plan = planCollectives(spec({op}, {DType::Float32}, 1000, 1000, 2), 3);
    ASSERT_EQ(plan.size(), 1u) << api::toString(op);
    EXPECT_EQ(plan[0].elements, 249) << api::toString(op);
    EXPECT_EQ(plan[0].bytes, 996) << api::toString(op);
  }
  // Unchunked ops keep every whole element.
  auto plan = planCollectives(spec({CollectiveOp::Reduce}, {DType::Float32}, 1000, 1000, 2), 3);
  EXPECT_EQ(plan[0].elements, 250);
}

TEST(CollectivePlan, TinySizesGetOneElementPerChunkAndCollapse) {
  // 1, 2, 4, 8, 16 B of float32 on 3 ranks: 3 elements (12 B) until 16 B, which
  // still rounds down to 3; a single case remains.
  auto gather = planCollectives(spec({CollectiveOp::AllGather}, {DType::Float32}, 1, 16, 2), 3);
  std::vector<CollectiveCase> expected{{CollectiveOp::AllGather, DType::Float32, 12, 3}};
  EXPECT_EQ(gather, expected);
  // Unchunked: 1 and 2 B become one float; 4 B is the same; then 8, 16 B.
  auto reduce = planCollectives(spec({CollectiveOp::AllReduce}, {DType::Float32}, 1, 16, 2), 3);
  ASSERT_EQ(reduce.size(), 3u);
  EXPECT_EQ(reduce[0].bytes, 4);
  EXPECT_EQ(reduce[1].bytes, 8);
  EXPECT_EQ(reduce[2].bytes, 16);
}

TEST(CollectivePlan, DuplicatesOnlyCollapseWithinOneOpAndDtype) {
  auto plan = planCollectives(spec({CollectiveOp::AllGather, CollectiveOp::Gather},
                                   {DType::Float16, DType::Int64}, 2, 4, 2),
                              2);
  // float16: 2 B -> 2 elements (one per rank), 4 B -> 2 elements: collapses.
  // int64: always 2 elements of 8 B.
  std::vector<CollectiveCase> expected{{CollectiveOp::AllGather, DType::Float16, 4, 2},
                                       {CollectiveOp::AllGather, DType::Int64, 16, 2},
                                       {CollectiveOp::Gather, DType::Float16, 4, 2},
                                       {CollectiveOp::Gather, DType::Int64, 16, 2}};
  EXPECT_EQ(plan, expected);
}

TEST(CollectivePlan, DefaultSpecGivesNineSizesPerOp) {
  api::CollectivesSpec s;  // 1 KiB .. 64 MiB by 4, nine ops, float32
  auto plan = planCollectives(s, 4);
  EXPECT_EQ(plan.size(), 9u * 9u);
  EXPECT_EQ(plan.front().bytes, 1024);
  EXPECT_EQ(plan.back().op, CollectiveOp::SendRecv);
  EXPECT_EQ(plan.back().bytes, 64LL << 20);
}

TEST(CollectivePlan, RejectsImpossibleInputs) {
  api::CollectivesSpec s;
  EXPECT_THROW(planCollectives(s, 0), std::invalid_argument);
  s.stepFactor = 1;
  EXPECT_THROW(planCollectives(s, 2), std::invalid_argument);
  s.stepFactor = 2;
  s.minBytes = 0;
  EXPECT_THROW(planCollectives(s, 2), std::invalid_argument);
}

TEST(CollectivePlan, BusBandwidthFactorsAreNcclTests) {
  EXPECT_DOUBLE_EQ(busbwFactor(CollectiveOp::AllReduce, 4), 1.5);
  EXPECT_DOUBLE_EQ(busbwFactor(CollectiveOp::AllReduce, 1), 0.0);
  for (CollectiveOp op : {CollectiveOp::AllGather, CollectiveOp::ReduceScatter,
                          CollectiveOp::AllToAll, CollectiveOp::Scatter, CollectiveOp::Gather}) {
    EXPECT_DOUBLE_EQ(busbwFactor(op, 4), 0.75) << api::toString(op);
    EXPECT_DOUBLE_EQ(busbwFactor(op, 2), 0.5) << api::toString(op);
  }
  for (CollectiveOp op : {CollectiveOp::Broadcast, CollectiveOp::Reduce, CollectiveOp::SendRecv}) {
    EXPECT_DOUBLE_EQ(busbwFactor(op, 8), 1.0) << api::toString(op);
  }
}

}  // namespace
}  // namespace distbench::worker
