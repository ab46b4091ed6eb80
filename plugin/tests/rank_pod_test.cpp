#include "distbench/plugin/rank_pod.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "distbench/cli/arg_parser.h"

namespace distbench::plugin {
namespace {

TEST(RankPod, RolesIndicesAndGlobalRanksNameTheGangsPods) {
  EXPECT_EQ(rankPod("small", "master", 2, 4).pod, "small-master-0");
  EXPECT_EQ(rankPod("small", "0", 2, 4).pod, "small-master-0");
  EXPECT_EQ(rankPod("small", "ps1", 2, 4).pod, "small-ps-1");
  EXPECT_EQ(rankPod("small", "2", 2, 4).pod, "small-ps-1");
  EXPECT_EQ(rankPod("small", "trainer3", 2, 4).pod, "small-trainer-3");
  EXPECT_EQ(rankPod("small", "6", 2, 4).pod, "small-trainer-3");
  EXPECT_EQ(rankPod("small", "6", 2, 4).label, "trainer3");
  EXPECT_EQ(rankPod("small", "2", 2, 4).label, "ps1");
  EXPECT_EQ(rankPod("small", "0", 2, 4).label, "master");
}

TEST(RankPod, ARankTheRunHasNotIsNamedWithWhatItHas) {
  try {
    rankPod("small", "trainer4", 0, 4);
    FAIL() << "trainer4 of 4 taken";
  } catch (const cli::UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--rank trainer4: small has no such rank (master, trainer0..trainer3, or a global "
              "rank 0..4)");
  }
  EXPECT_THROW(rankPod("small", "ps0", 0, 4), cli::UsageError);
  EXPECT_THROW(rankPod("small", "worker1", 0, 4), cli::UsageError);
  EXPECT_THROW(rankPod("small", "5", 0, 4), cli::UsageError);
}

}  // namespace
}  // namespace distbench::plugin
