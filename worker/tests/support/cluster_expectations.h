// What most worker tests expect of a LocalCluster at the end: every rank
// exited 0, and if not, which one and all the ranks' output to see why.
#pragma once

#include <gtest/gtest.h>

#include <chrono>

#include "support/local_cluster.h"

namespace distbench::worker::testing {

inline void expectAllSucceeded(const LocalCluster& cluster) {
  for (int r = 0; r < cluster.worldSize(); ++r) {
    ASSERT_TRUE(cluster.exitStatus(r).has_value()) << "rank " << r << " still running\n"
                                                   << cluster.allOutput();
    ASSERT_TRUE(cluster.exitStatus(r)->success())
        << "rank " << r << " " << cluster.exitStatus(r)->describe() << "\n"
        << cluster.allOutput();
  }
}

// Waits (at most `limit`) for every rank, then expectAllSucceeded.
inline void runToCompletion(LocalCluster& cluster,
                            std::chrono::seconds limit = std::chrono::seconds(120)) {
  cluster.waitAll(limit);
  expectAllSucceeded(cluster);
}

}  // namespace distbench::worker::testing
