// The run key stays inside the process (run_store.h): whatever text a rank
// prints or publishes, the key is not in it.
#include "distbench/worker/comm/run_store.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace distbench::worker
