#include "distbench/process/temp_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace distbench::process {
namespace {

bool exists(const std::string& path) {
  struct stat s {};
  return ::lstat(path.c_str(), &s) == 0;
}

TEST(TempDir, RemovesNestedFilesAndDirectoriesWhenItGoes) {
  std::string path;
  {
    TempDir dir("distbench-tempdir-test-");
    path = dir.path();
    ASSERT_TRUE(exists(path));
    ASSERT_EQ(::mkdir((path + "/a").c_str(), 0700), 0);
    ASSERT_EQ(::mkdir((path + "/a/b").c_str(), 0700), 0);
    std::ofstream(path + "/top.txt") << "x";
    std::ofstream(path + "/a/b/deep.txt") << "y";
    ASSERT_EQ(::mkfifo((path + "/a/fifo").c_str(), 0600), 0);
  }
  EXPECT_FALSE(exists(path));
}

// A link inside goes; what it points to outside stays.
TEST(TempDir, RemovesSymbolicLinksWithoutFollowingThem) {
  TempDir outside("distbench-tempdir-outside-");
  const std::string keep = outside.path() + "/keep";
  ASSERT_EQ(::mkdir(keep.c_str(), 0700), 0);
  std::ofstream(keep + "/file") << "z";
  std::string path;
  {
    TempDir dir("distbench-tempdir-test-");
    path = dir.path();
    ASSERT_EQ(::symlink(keep.c_str(), (path + "/link").c_str()), 0);
  }
  EXPECT_FALSE(exists(path));
  EXPECT_TRUE(exists(keep + "/file"));
}

TEST(TempDir, ADirectoryRemovedByItsOwnerIsNoError) {
  TempDir dir("distbench-tempdir-test-");
  ASSERT_EQ(::rmdir(dir.path().c_str()), 0);
}

}  // namespace
}  // namespace distbench::process
