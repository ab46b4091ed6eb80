#include "distbench/api/run_key.h"

#include <gtest/gtest.h>

#include <set>

namespace distbench::api {
namespace {

TEST(RunKey, NewKeysAreValidAndDistinct) {
  std::set<std::string> keys;
  for (int i = 0; i < 100; ++i) {
    const std::string key = newRunKey();
    EXPECT_EQ(key.size(), 32u);
    EXPECT_TRUE(isValidRunKey(key)) << key;
    keys.insert(key);
  }
  EXPECT_EQ(keys.size(), 100u);
}

TEST(RunKey, ShortLongOrOddKeysAreRefused) {
  EXPECT_FALSE(isValidRunKey(""));
  EXPECT_FALSE(isValidRunKey(std::string(31, 'a')));
  EXPECT_TRUE(isValidRunKey(std::string(32, 'a')));
  EXPECT_TRUE(isValidRunKey(std::string(128, 'Z')));
  EXPECT_FALSE(isValidRunKey(std::string(129, 'a')));
  // A prefix in the store: nothing that could read as a path or a separator.
  EXPECT_FALSE(isValidRunKey(std::string(31, 'a') + "/"));
  EXPECT_FALSE(isValidRunKey(std::string(31, 'a') + " "));
  EXPECT_TRUE(isValidRunKey(std::string(30, 'a') + "_-"));
}

constexpr const char* kKey = "0123456789abcdef0123456789abcdef";

// LibTorch 2.6's TCPStore, when a wait inside Gloo's connectFullMesh times out.
TEST(RunKey, RedactionLeavesNoKeyInAStoreTimeout) {
  const std::string line = std::string("wait timeout after 3000ms, keys: /run-") + kKey +
                           "/global/0/3, /run-" + kKey + "/global/0/1";
  const std::string redacted = redactRunKeys(line);
  EXPECT_EQ(
      redacted,
      "wait timeout after 3000ms, keys: /run-<run-key>/global/0/3, /run-<run-key>/global/0/1");
  // The worker knows its own key, however it was written, wherever it is.
  const std::string handMade = "Hand_Made-Key_of_thirty-two_chars";
  EXPECT_EQ(redactRunKeys("config " + handMade + ".yaml; run-" + handMade + "/x", handMade),
            "config <run-key>.yaml; run-<run-key>/x");
  // A hand-made key another rank printed: the store's "/" after it.
  EXPECT_EQ(redactRunKeys("keys: run-" + handMade + "/global/0"), "keys: run-<run-key>/global/0");
}

TEST(RunKey, RedactionLeavesNamesThatOnlyLookLikeOne) {
  for (const std::string& text :
       {std::string("nightly-run-collectives-large-gang-29431340-trainer-0 (rank 3): exit code 1"),
        std::string("run-") + std::string(31, 'a') + "/x", std::string("run-"),
        std::string("run-/"), std::string("ab"), std::string("")}) {
    EXPECT_EQ(redactRunKeys(text), text);
  }
  // Not a valid key: nothing to look for.
  EXPECT_EQ(redactRunKeys("short", "short"), "short");
}

}  // namespace
}  // namespace distbench::api
