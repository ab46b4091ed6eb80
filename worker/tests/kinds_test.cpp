// The table of kinds (common/benchmark_kind.h): every api::BenchmarkKind has
// its own entry, complete, with the groups docs/architecture.md lists.
#include <gtest/gtest.h>

#include "distbench/worker/common/benchmark_kind.h"

namespace distbench::worker {
namespace {

using api::BenchmarkKind;

TEST(Kinds, EveryKindHasItsOwnCompleteEntry) {
  for (BenchmarkKind kind : {BenchmarkKind::HybridDDPRPC, BenchmarkKind::DDP,
                             BenchmarkKind::Collectives, BenchmarkKind::Fabric}) {
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
  EXPECT_EQ(groups(BenchmarkKind::Fabric), std::make_pair(false, true));
}

}  // namespace
}  // namespace distbench::worker
