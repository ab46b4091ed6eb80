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

}  // namespace
}  // namespace distbench::api
