// The table of kinds (common/benchmark_kind.h): every api::BenchmarkKind has
// its own entry, complete, with the groups docs/architecture.md lists.
#include <gtest/gtest.h>

#include "common/benchmark_kind.h"

namespace distbench::worker {
namespace {

using api::BenchmarkKind;

TEST(Kinds, EveryKindHasItsOwnCompleteEntry) {
  for (BenchmarkKind kind :
       {BenchmarkKind::HybridDDPRPC, BenchmarkKind::DDP, BenchmarkKind::Collectives}) {
    SCOPED_TRACE(api::toString(kind));
    const KindEntry& entry = kindEntry(kind);
    EXPECT_EQ(entry.kind, kind);
    EXPECT_NE(entry.run, nullptr);
    EXPECT_NE(entry.headline, nullptr);
  }
}

TEST(Kinds, GroupsAsDocumented) {
  auto groups = [](BenchmarkKind kind) {
    const GroupsWanted g = kindEntry(kind).groups;
    return std::make_pair(g.global, g.trainers);
  };
  EXPECT_EQ(groups(BenchmarkKind::HybridDDPRPC), std::make_pair(true, true));
  EXPECT_EQ(groups(BenchmarkKind::DDP), std::make_pair(false, false));
  EXPECT_EQ(groups(BenchmarkKind::Collectives), std::make_pair(false, true));
}

// Only HybridDDPRPC has limits of its own; the build's (CPU Gloo) apply to
// every kind and are checked by the worker itself.
TEST(Kinds, HybridNamesTheDeviceItCannotRunOn) {
  api::RuntimeSpec runtime;
  runtime.device = api::Device::CPU;
  runtime.backend = api::Backend::Gloo;
  const KindEntry& hybrid = kindEntry(BenchmarkKind::HybridDDPRPC);
  ASSERT_NE(hybrid.unsupportedRuntime, nullptr);
  EXPECT_EQ(hybrid.unsupportedRuntime(runtime), "");
  runtime.device = api::Device::CUDA;
  runtime.backend = api::Backend::NCCL;
  EXPECT_EQ(hybrid.unsupportedRuntime(runtime),
            "spec.runtime.device: cuda/nccl is not supported by HybridDDPRPC in this worker; use "
            "cpu with gloo");
  EXPECT_EQ(kindEntry(BenchmarkKind::DDP).unsupportedRuntime, nullptr);
  EXPECT_EQ(kindEntry(BenchmarkKind::Collectives).unsupportedRuntime, nullptr);
}

}  // namespace
}  // namespace distbench::worker
