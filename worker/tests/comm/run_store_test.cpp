// The run key stays inside the process (run_store.h): whatever text a rank
// prints or publishes, the key is not in it; and a verdict says whether it
// is a refusal (run_verdict.h), which every rank then exits with.
#include "distbench/worker/comm/run_store.h"

#include <gtest/gtest.h>

#include <torch/csrc/distributed/c10d/Store.hpp>

#include "distbench/process/free_ports.h"
#include "distbench/worker/comm/run_verdict.h"
#include "distbench/worker/comm/store_connection.h"

namespace distbench::worker {
namespace {

constexpr const char* kKey = "0123456789abcdef0123456789abcdef";

// LibTorch 2.6's TCPStore, when a wait in Gloo's connectFullMesh times out,
// as the worker's error line carries it.
TEST(RunStore, RedactionLeavesNoKeyInLibTorchsStoreTimeout) {
  rememberRunKey(kKey);
  const std::string thrown =
      std::string(
          "distbench-worker trainer1: error: forming the all ranks group: wait timeout "
          "after 3000ms, keys: /run-") +
      kKey + "/global/0/3";
  const std::string printed = redactRunKey(thrown);
  EXPECT_EQ(printed.find(std::string(kKey).substr(0, 8)), std::string::npos) << printed;
  EXPECT_NE(printed.find("keys: /run-<run-key>/global/0/3"), std::string::npos) << printed;
  // Its own key wherever it stands, not only after "run-".
  EXPECT_EQ(redactRunKey(std::string("secret ") + kKey + "."), "secret <run-key>.");
  rememberRunKey("");
}

TEST(RunStore, AVerdictIsPublishedWithoutTheKeyAndSaysWhetherItIsARefusal) {
  const int port = process::pickFreePorts(1).at(0);
  auto store = connectTcpStore("127.0.0.1", port, /*isServer=*/true, std::chrono::seconds(10));
  EXPECT_FALSE(readVerdict(*store).has_value());
  rememberRunKey(kKey);
  ASSERT_TRUE(publishVerdict(*store, std::string("trainer0 (rank 2) cannot run: ") + kKey,
                             /*refusal=*/true));
  rememberRunKey("");
  // The first verdict stands, refusal and all.
  EXPECT_FALSE(publishVerdict(*store, "master: later"));
  const std::optional<RunVerdict> v = readVerdict(*store);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->text, "trainer0 (rank 2) cannot run: <run-key>");
  EXPECT_TRUE(v->refusal);

  const int other = process::pickFreePorts(1).at(0);
  auto plain = connectTcpStore("127.0.0.1", other, /*isServer=*/true, std::chrono::seconds(10));
  ASSERT_TRUE(publishVerdict(*plain, "trainer0 (rank 2) failed: boom"));
  ASSERT_TRUE(readVerdict(*plain).has_value());
  EXPECT_FALSE(readVerdict(*plain)->refusal);
}

}  // namespace
}  // namespace distbench::worker
