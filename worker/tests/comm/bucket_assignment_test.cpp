// The bucket policy alone, on sizes: no tensors, no process group.
#include "distbench/worker/comm/bucket_assignment.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace distbench::worker {
namespace {

constexpr int64_t KiB = 1024;
constexpr int64_t MiB = 1024 * KiB;

struct Case {
  std::string name;
  std::vector<int64_t> bytes;  // per tensor, in parameter order
  double capMB;
  std::vector<std::vector<size_t>> buckets;
};

const std::vector<Case> kCases = {
    {"nothing", {}, 25, {}},
    {"one tensor", {4 * KiB}, 25, {{0}}},
    // Linear 1024-512-64-128: the first bucket stops at 1 MiB.
    {"first bucket capped at one mebibyte",
     {2 * MiB, 2 * KiB, 128 * KiB, 256, 32 * KiB, 512},
     25,
     {{5, 4, 3, 2, 1}, {0}}},
    // Linear 64-1024-512-8: the last bucket (2 MiB + 260 KiB) is over the
    // first cap, so the earliest layer's tensors split off it.
    {"earliest layers split off the last bucket",
     {256 * KiB, 4 * KiB, 2 * MiB, 2 * KiB, 16 * KiB, 32},
     25,
     {{5, 4, 3}, {2}, {1, 0}}},
    {"a cap smaller than every tensor gives one bucket each",
     {16 * KiB, 256, 16 * KiB, 256},
     0.001,
     {{3}, {2}, {1}, {0}}},
    {"a tensor larger than the cap gets a bucket of its own",
     {KiB, 3 * MiB, KiB},
     2,
     {{2}, {1}, {0}}},
    // After the first bucket the cap is bucketCapMB: 1 MiB + 1 MiB fit 2 MB.
    {"later buckets use bucketCapMB", {MiB, MiB, MiB, 512 * KiB}, 2, {{3}, {2, 1}, {0}}},
    {"exactly the cap still fits", {512 * KiB, 512 * KiB}, 25, {{1, 0}}},
    {"a cap below one mebibyte caps the first bucket too",
     {100 * KiB, 100 * KiB, 100 * KiB},
     0.2,
     {{2, 1}, {0}}},
};

TEST(BucketAssignment, FollowsThePolicy) {
  for (const Case& c : kCases) {
    EXPECT_EQ(computeBucketAssignment(c.bytes, c.capMB), c.buckets) << c.name;
  }
}

TEST(BucketAssignment, EveryTensorInExactlyOneBucket) {
  std::vector<int64_t> bytes;
  for (int k = 0; k < 200; ++k) bytes.push_back((k * 7919 % 97 + 1) * 37 * KiB);
  for (double cap : {0.001, 0.5, 1.0, 4.0, 25.0, 1000.0}) {
    std::vector<int> seen(bytes.size(), 0);
    for (const auto& bucket : computeBucketAssignment(bytes, cap)) {
      EXPECT_FALSE(bucket.empty()) << "cap " << cap;
      for (size_t k : bucket) ++seen[k];
    }
    for (size_t k = 0; k < bytes.size(); ++k) EXPECT_EQ(seen[k], 1) << "tensor " << k;
  }
}

// After the first backward the bucketer passes the order gradients really
// arrived in; the same policy then follows that order.
TEST(BucketAssignment, FollowsAGivenArrivalOrder) {
  const std::vector<int64_t> bytes{2 * MiB, 2 * KiB, 128 * KiB, 256, 32 * KiB, 512};
  // The default order is the reverse of the parameters'.
  EXPECT_EQ(computeBucketAssignment(bytes, 25, {5, 4, 3, 2, 1, 0}),
            computeBucketAssignment(bytes, 25));
  // Tensor 0 (2 MiB) comes first: alone over the first cap, then the rest.
  const std::vector<std::vector<size_t>> expected{{0}, {1, 3, 5, 2, 4}};
  EXPECT_EQ(computeBucketAssignment(bytes, 25, {0, 1, 3, 5, 2, 4}), expected);
  // The last bucket is split by arrival too: its latest tensors go.
  const std::vector<std::vector<size_t>> split{{4, 5, 0}, {3}, {2, 1}};
  EXPECT_EQ(computeBucketAssignment({256 * KiB, 4 * KiB, 16 * KiB, 2 * MiB, 16 * KiB, 32}, 25,
                                    {4, 5, 0, 3, 2, 1}),
            split);
}

TEST(BucketAssignment, RejectsAnOrderThatIsNotAPermutation) {
  const std::vector<int64_t> bytes{KiB, KiB, KiB};
  EXPECT_THROW(computeBucketAssignment(bytes, 25, {0, 1}), std::invalid_argument);
  EXPECT_THROW(computeBucketAssignment(bytes, 25, {0, 1, 1}), std::invalid_argument);
  EXPECT_THROW(computeBucketAssignment(bytes, 25, {0, 1, 3}), std::invalid_argument);
}

}  // namespace
}  // namespace distbench::worker
