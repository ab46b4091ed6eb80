#include "distbench/worker/hybrid/batch_generator.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

namespace distbench::worker {
namespace {

TEST(BatchGenerator, FollowsTheSeedsShape) {
  api::HybridDDPRPCSpec spec;  // 20..50 indices, offsets step 1..10, 300 rows
  BatchGenerator gen(spec, 0, 0, 8);
  for (int i = 0; i < 500; ++i) {
    Batch b = gen.next();
    const int64_t n = b.indices.size(0);
    ASSERT_GE(n, 20);
    ASSERT_LE(n, 50);
    EXPECT_GE(b.indices.min().item<int64_t>(), 0);
    EXPECT_LT(b.indices.max().item<int64_t>(), 300);
    ASSERT_EQ(b.offsets[0].item<int64_t>(), 0);
    for (int64_t k = 1; k < b.offsets.size(0); ++k) {
      const int64_t step = b.offsets[k].item<int64_t>() - b.offsets[k - 1].item<int64_t>();
      ASSERT_GE(step, 1);
      ASSERT_LE(step, 10);
    }
    EXPECT_LT(b.offsets[-1].item<int64_t>(), n);
    ASSERT_EQ(b.targets.size(0), b.offsets.size(0));
    EXPECT_GE(b.targets.min().item<int64_t>(), 0);
    EXPECT_LT(b.targets.max().item<int64_t>(), 8);
  }
}

TEST(BatchGenerator, ReproduciblePerTrainerAndDistinctAcrossTrainers) {
  api::HybridDDPRPCSpec spec;
  BatchGenerator a(spec, 3, 1, 8), again(spec, 3, 1, 8), other(spec, 3, 2, 8);
  bool differs = false;
  for (int i = 0; i < 20; ++i) {
    Batch x = a.next(), y = again.next(), z = other.next();
    ASSERT_TRUE(at::equal(x.indices, y.indices));
    ASSERT_TRUE(at::equal(x.offsets, y.offsets));
    ASSERT_TRUE(at::equal(x.targets, y.targets));
    differs = differs || x.indices.size(0) != z.indices.size(0) || !at::equal(x.indices, z.indices);
  }
  EXPECT_TRUE(differs);
}

}  // namespace
}  // namespace distbench::worker
