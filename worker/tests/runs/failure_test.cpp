// Failures end every rank with a non-zero exit, a message naming the rank at
// fault, and within the configured timeout: never a hang.
#include <gtest/gtest.h>

#include <csignal>

#include "distbench/api/presets.h"
#include "distbench/api/worker_env.h"
#include "support/local_cluster.h"

namespace distbench::worker {
namespace {

using std::chrono::seconds;
using testing::LocalCluster;

api::DistBenchmark failureBenchmark() {
  api::DistBenchmark b = api::preset("tutorial");
  b.metadata.name = "failure-test";
  b.spec.topology.trainers = 2;
  b.spec.topology.parameterServers = 2;
  b.spec.benchmark.hybridDDPRPC.epochs = 100000;  // still running when we strike
  return b;
}

void expectAllFailedNaming(const LocalCluster& cluster, int skip, const std::string& name) {
  for (int r = 0; r < cluster.worldSize(); ++r) {
    if (r == skip) continue;
    ASSERT_TRUE(cluster.exitStatus(r).has_value()) << "rank " << r << " still running\n"
                                                   << cluster.allOutput();
    EXPECT_FALSE(cluster.exitStatus(r)->success()) << "rank " << r;
    EXPECT_NE(cluster.output(r).find(name), std::string::npos)
        << "rank " << r << " does not name " << name << ":\n"
        << cluster.output(r);
  }
}

TEST(Failures, MissingRankEndsEveryOtherWithinTheRendezvousTimeout) {
  api::DistBenchmark b = failureBenchmark();
  b.spec.runtime.rendezvousTimeoutSeconds = 4;
  const int missing = 4;  // trainer1
  LocalCluster cluster(b, {missing});
  // Timed from the last check-in, so a slow LibTorch start on a loaded
  // machine is not counted against the timeout.
  for (int r = 0; r < missing; ++r) {
    ASSERT_TRUE(cluster.waitForOutput(r, "checked in", seconds(60))) << cluster.allOutput();
  }
  const auto took = cluster.waitAll(seconds(30));
  expectAllFailedNaming(cluster, missing, "missing trainer1 (rank 4)");
  expectAllFailedNaming(cluster, missing, "timed out after 4 s");
  EXPECT_LT(took, std::chrono::milliseconds(4000 + 4000)) << cluster.allOutput();
}

TEST(Failures, MissingMasterIsNamedByEveryRank) {
  api::DistBenchmark b = failureBenchmark();
  b.spec.runtime.rendezvousTimeoutSeconds = 3;
  LocalCluster cluster(b, {0});
  const auto took = cluster.waitAll(seconds(60));
  expectAllFailedNaming(cluster, 0, "master (rank 0)");
  // Nothing is printed before a rank reaches the master, so this includes
  // process start-up: the bound only tells the configured 3 s from the
  // default timeout or a hang.
  EXPECT_LT(took, std::chrono::milliseconds(3000 + 20000)) << cluster.allOutput();
}

TEST(Failures, KilledParameterServerEndsTrainersAndMaster) {
  api::DistBenchmark b = failureBenchmark();
  b.spec.runtime.peerTimeoutSeconds = 5;
  LocalCluster cluster(b);
  // Mid-run: a trainer has finished a few epochs.
  ASSERT_TRUE(cluster.waitForOutput(3, "done=3 ", seconds(60))) << cluster.allOutput();
  const int victim = 1;  // ps0
  cluster.kill(victim, SIGKILL);
  const auto took = cluster.waitAll(seconds(60));
  for (int r = 0; r < cluster.worldSize(); ++r) {
    if (r == victim) continue;
    ASSERT_TRUE(cluster.exitStatus(r).has_value()) << "rank " << r << " still running\n"
                                                   << cluster.allOutput();
    EXPECT_FALSE(cluster.exitStatus(r)->success()) << "rank " << r << "\n" << cluster.allOutput();
  }
  // A trainer waiting on ps0 says so; the other may first see its fellow
  // trainer go (the DDP allreduce), whichever comes first.
  EXPECT_TRUE(cluster.output(3).find("ps0 (rank 1)") != std::string::npos ||
              cluster.output(4).find("ps0 (rank 1)") != std::string::npos)
      << cluster.allOutput();
  // Each rank gives up within its peer timeout (plus the seconds the chain of
  // failures takes to travel), not the test's limit.
  EXPECT_LT(took, std::chrono::milliseconds(3 * 5000 + 5000)) << cluster.allOutput();
}

TEST(Failures, KilledTrainerEndsEveryone) {
  api::DistBenchmark b = failureBenchmark();
  b.spec.runtime.peerTimeoutSeconds = 5;
  LocalCluster cluster(b);
  ASSERT_TRUE(cluster.waitForOutput(4, "done=3 ", seconds(60))) << cluster.allOutput();
  cluster.kill(3, SIGKILL);  // trainer0
  const auto took = cluster.waitAll(seconds(60));
  for (int r : {0, 1, 2, 4}) {
    ASSERT_TRUE(cluster.exitStatus(r).has_value()) << "rank " << r << "\n" << cluster.allOutput();
    EXPECT_FALSE(cluster.exitStatus(r)->success()) << "rank " << r;
  }
  // Whoever notices first publishes the verdict: a parameter server serving
  // trainer0, or trainer1, whose allreduce has trainer0 as its one peer.
  // Either way every rank left names trainer0.
  for (int r : {0, 1, 2, 4}) {
    EXPECT_NE(cluster.output(r).find("trainer0 (rank 3)"), std::string::npos)
        << "rank " << r << "\n"
        << cluster.allOutput();
  }
  EXPECT_LT(took, std::chrono::milliseconds(3 * 5000 + 5000)) << cluster.allOutput();
}

// A rank that fails on an error of its own, not a signal: trainer1 is told
// to bind its Gloo connections to an address that is not this machine's
// (TEST-NET-1), as a pod given the wrong POD_IP would be. It fails while
// the others are forming their groups, waiting for its address; its verdict
// ends them at once instead of after peerTimeoutSeconds, naming it and why.
TEST(Failures, ARankThatFailsPostsTheVerdictAndTheOthersStopAtOnce) {
  api::DistBenchmark b = failureBenchmark();
  b.spec.runtime.peerTimeoutSeconds = 120;  // what the others would otherwise wait out
  const int failing = 4;                    // trainer1
  LocalCluster cluster(b, {}, 0, {}, true, {{failing, {{api::kEnvPodIp, "192.0.2.1"}}}});
  const auto failedIn = cluster.waitExit(failing, std::chrono::seconds(60));
  ASSERT_TRUE(failedIn.has_value()) << cluster.allOutput();
  EXPECT_FALSE(cluster.exitStatus(failing)->success());
  const auto took = cluster.waitAll(seconds(30));
  expectAllFailedNaming(cluster, failing, "trainer1 (rank 4) failed: ");
  std::cerr << "  the others ended " << took.count() << " ms after trainer1\n";
  // The verdict is polled every 100-500 ms; the rest is process exit.
  EXPECT_LT(took, std::chrono::milliseconds(10000)) << cluster.allOutput();
}

}  // namespace
}  // namespace distbench::worker
