#include "distbench/api/benchmark_spec.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace distbench::api {
namespace {

TEST(BenchmarkSpecTest, EnumSpellingsMatchTheYaml) {
  EXPECT_STREQ(toString(BenchmarkKind::HybridDDPRPC), "HybridDDPRPC");
  EXPECT_STREQ(toString(EmbeddingMode::Sum), "sum");
  EXPECT_STREQ(toString(EmbeddingMode::Mean), "mean");
  EXPECT_STREQ(toString(EmbeddingMode::Max), "max");
  EXPECT_STREQ(toString(ParameterServerMode::Async), "Async");
  EXPECT_STREQ(toString(ParameterServerMode::Sync), "Sync");
  EXPECT_STREQ(toString(Backend::Gloo), "gloo");
  EXPECT_STREQ(toString(Backend::NCCL), "nccl");
  EXPECT_STREQ(toString(Device::CPU), "cpu");
  EXPECT_STREQ(toString(Device::CUDA), "cuda");
}

TEST(BenchmarkSpecTest, WorldSizeCountsEveryRank) {
  DistBenchmarkSpec spec;
  EXPECT_EQ(worldSize(spec), 17);
  spec.topology = {3, 2};
  EXPECT_EQ(worldSize(spec), 6);
}

TEST(BenchmarkSpecTest, GpusPerTrainerIsZeroOnCpuElseTheFieldOrOne) {
  RuntimeSpec r;
  EXPECT_EQ(gpusPerTrainer(r), 0) << "cpu";
  r.gpusPerRank = 4;
  EXPECT_EQ(gpusPerTrainer(r), 0) << "cpu, whatever the (refused) field says";
  r.device = Device::CUDA;
  EXPECT_EQ(gpusPerTrainer(r), 4);
  r.gpusPerRank.reset();
  EXPECT_EQ(gpusPerTrainer(r), 1) << "the default";
}

TEST(BenchmarkSpecTest, EqualityLooksAtEveryLevel) {
  const DistBenchmark base = test::minimalBenchmark();
  EXPECT_EQ(base, test::minimalBenchmark());
  DistBenchmark b = base;
  b.metadata.annotations["a"] = "b";
  EXPECT_NE(b, base);
  b = base;
  b.spec.benchmark.hybridDDPRPC.parameterServerMode = ParameterServerMode::Sync;
  EXPECT_NE(b, base);
  b = base;
  b.spec.benchmark.bucketCapMB = 24.9;
  EXPECT_NE(b, base);
  b = base;
  b.spec.runtime.image = "other";
  EXPECT_NE(b, base);
  b = base;
  b.spec.runtime.gpusPerRank = 1;  // set to its default is still set
  EXPECT_NE(b, base);
  b = base;
  b.apiVersion = "other";
  EXPECT_NE(b, base);
}

}  // namespace
}  // namespace distbench::api
