// The run key (api/run_key.h): a client that reaches the master's store
// without the key can neither end the run with a verdict of its own nor join
// the gang; without a key, as before, it can.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "distbench/api/presets.h"
#include "distbench/api/worker_env.h"
#include "distbench/cli/local_run/local_wiring.h"
#include "distbench/process/temp_dir.h"
#include "distbench/worker/comm/run_store.h"
#include "distbench/worker/comm/run_verdict.h"
#include "distbench/worker/comm/store_connection.h"
#include "support/local_cluster.h"

namespace distbench::worker {
namespace {

using std::chrono::seconds;
using testing::LocalCluster;

constexpr const char* kForged = "intruder: the run is off";

api::DistBenchmark keyedBenchmark(int epochs) {
  api::DistBenchmark b = api::preset("tutorial");
  b.metadata.name = "run-key-test";
  b.spec.benchmark.hybridDDPRPC.epochs = epochs;
  return b;
}

// What anyone who finds the store's port can do: c10d's own client, the
// run-control keys as the worker names them.
void strike(int port) {
  auto store = connectTcpStore("127.0.0.1", port, /*isServer=*/false, std::chrono::seconds(10));
  ASSERT_TRUE(publishVerdict(*store, kForged));
}

std::map<int, process::ChildProcess::Env> everyRank(int world, const std::string& name,
                                                    const std::string& value) {
  std::map<int, process::ChildProcess::Env> env;
  for (int r = 0; r < world; ++r) env[r] = {{name, value}};
  return env;
}

TEST(RunKey, AVerdictFromOutsideTheGangIsNotSeen) {
  LocalCluster cluster(keyedBenchmark(100));
  ASSERT_TRUE(cluster.waitForOutput(2, "done=3 ", seconds(60))) << cluster.allOutput();
  strike(cluster.masterPort());
  for (int r = 0; r < cluster.worldSize(); ++r) {
    ASSERT_FALSE(cluster.exitStatus(r).has_value()) << "the run ended before the strike:\n"
                                                    << cluster.allOutput();
  }
  cluster.waitAll(seconds(120));
  for (int r = 0; r < cluster.worldSize(); ++r) {
    ASSERT_TRUE(cluster.exitStatus(r).has_value()) << "rank " << r << "\n" << cluster.allOutput();
    EXPECT_TRUE(cluster.exitStatus(r)->success()) << "rank " << r << "\n" << cluster.allOutput();
    EXPECT_EQ(cluster.output(r).find(kForged), std::string::npos) << cluster.allOutput();
  }
}

// The same strike on ranks started without a key: what the key prevents.
TEST(RunKey, WithoutAKeyTheSameVerdictEndsTheRun) {
  api::DistBenchmark b = keyedBenchmark(100000);
  const int world = static_cast<int>(api::worldSize(b.spec));
  LocalCluster cluster(b, {}, 0, {}, true, everyRank(world, api::kEnvRunKeyFile, ""));
  ASSERT_TRUE(cluster.waitForOutput(2, "done=3 ", seconds(60))) << cluster.allOutput();
  strike(cluster.masterPort());
  cluster.waitAll(seconds(60));
  for (int r = 0; r < world; ++r) {
    ASSERT_TRUE(cluster.exitStatus(r).has_value()) << "rank " << r << "\n" << cluster.allOutput();
    EXPECT_FALSE(cluster.exitStatus(r)->success()) << "rank " << r;
    EXPECT_NE(cluster.output(r).find(kForged), std::string::npos) << cluster.allOutput();
  }
}

// A process started with another key checks in under names nobody waits
// for: the gang times out naming the rank it never saw.
TEST(RunKey, ARankWithAnotherKeyIsNotInTheGang) {
  api::DistBenchmark b = keyedBenchmark(10);
  b.spec.runtime.rendezvousTimeoutSeconds = 4;
  process::TempDir dir("distbench-run-key-");
  const std::string otherKey = dir.path() + "/other-key";
  ASSERT_TRUE(cli::writeRunKeyFile(otherKey));
  const int outsider = 1;  // ps0
  LocalCluster cluster(b, {}, 0, {}, true, {{outsider, {{api::kEnvRunKeyFile, otherKey}}}});
  cluster.waitAll(seconds(60));
  for (int r = 0; r < cluster.worldSize(); ++r) {
    ASSERT_TRUE(cluster.exitStatus(r).has_value()) << "rank " << r << "\n" << cluster.allOutput();
    EXPECT_FALSE(cluster.exitStatus(r)->success()) << "rank " << r;
  }
  EXPECT_NE(cluster.output(0).find("missing ps0 (rank 1)"), std::string::npos)
      << cluster.allOutput();
}

// LibTorch 2.x names the store keys a timed-out wait was for, and they start
// with the run key; a verdict carrying one (from a rank that did not redact
// it) is printed by every rank, and a rank's last line becomes its pod's
// termination message, which the operator copies into status and Events.
TEST(RunKey, AVerdictNamingTheKeyIsPrintedWithoutIt) {
  LocalCluster cluster(keyedBenchmark(100));
  ASSERT_TRUE(cluster.waitForOutput(2, "done=3 ", seconds(60))) << cluster.allOutput();
  const std::string key = cluster.runKey();
  WorkerIdentity rank;
  rank.role = api::Role::Trainer;
  rank.masterAddr = "127.0.0.1";
  rank.masterPort = cluster.masterPort();
  rank.runKey = key;
  auto store = connectRunStore(rank, /*host=*/false, seconds(10));
  // As run_verdict.cpp keys it, unredacted.
  const std::string verdict =
      "trainer1 (rank 3) failed: forming the all ranks group: wait "
      "timeout after 3000ms, keys: /run-" +
      key + "/global/0/3";
  ASSERT_EQ(store->add("distbench/run/verdict-claim", 1), 1);
  store->set("distbench/run/verdict", std::vector<uint8_t>(verdict.begin(), verdict.end()));
  cluster.waitAll(seconds(60));
  for (int r = 0; r < cluster.worldSize(); ++r) {
    ASSERT_TRUE(cluster.exitStatus(r).has_value()) << "rank " << r << "\n" << cluster.allOutput();
    EXPECT_FALSE(cluster.exitStatus(r)->success()) << "rank " << r;
    EXPECT_EQ(cluster.output(r).find(key.substr(0, 12)), std::string::npos) << "rank " << r << "\n"
                                                                            << cluster.output(r);
    EXPECT_NE(cluster.output(r).find("keys: /run-<run-key>/global/0/3"), std::string::npos)
        << "rank " << r << "\n"
        << cluster.output(r);
  }
}

TEST(RunKey, AnUnreadableOrMalformedKeyFileIsRefusedNamingTheVariable) {
  api::DistBenchmark b = keyedBenchmark(10);
  process::TempDir dir("distbench-run-key-");
  const std::string shortKey = dir.path() + "/short-key";
  std::ofstream(shortKey) << "guessable";
  LocalCluster cluster(b, {}, 0, {}, true,
                       {{1, {{api::kEnvRunKeyFile, dir.path() + "/absent"}}},
                        {2, {{api::kEnvRunKeyFile, shortKey}}}});
  ASSERT_TRUE(cluster.waitExit(1, std::chrono::seconds(60)).has_value()) << cluster.allOutput();
  ASSERT_TRUE(cluster.waitExit(2, std::chrono::seconds(60)).has_value()) << cluster.allOutput();
  EXPECT_NE(cluster.output(1).find("DISTBENCH_RUN_KEY_FILE=" + dir.path() + "/absent: cannot read"),
            std::string::npos)
      << cluster.output(1);
  EXPECT_NE(cluster.output(2).find("32 to 128 characters"), std::string::npos) << cluster.output(2);
}

}  // namespace
}  // namespace distbench::worker
