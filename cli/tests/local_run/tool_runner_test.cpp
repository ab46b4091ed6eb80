// Where the sandbox finds `ip` and `tc` (tool_runner.h): as root never on
// PATH, which under `sudo -E` or a root shell with a user's PATH may name a
// directory someone else can write.
#include "distbench/cli/local_run/tool_runner.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "distbench/process/temp_dir.h"

namespace distbench::cli {
namespace {

using Dirs = std::vector<std::string>;

TEST(ToolSearchPath, AsRootOnlyTheSystemDirectories) {
  EXPECT_EQ(toolSearchPath(true, "/tmp/evil:/usr/bin"),
            (Dirs{"/usr/sbin", "/usr/bin", "/sbin", "/bin"}));
  EXPECT_EQ(toolSearchPath(true, nullptr), (Dirs{"/usr/sbin", "/usr/bin", "/sbin", "/bin"}));
}

TEST(ToolSearchPath, OtherwisePathThenTheSbinDirectories) {
  EXPECT_EQ(toolSearchPath(false, "/home/u/bin::/usr/bin"),
            (Dirs{"/home/u/bin", "/usr/bin", "/usr/sbin", "/sbin"}));
  EXPECT_EQ(toolSearchPath(false, nullptr), (Dirs{"/usr/sbin", "/sbin"}));
}

// Sets PATH for one test and puts it back.
class ScopedPath {
 public:
  explicit ScopedPath(const std::string& path) {
    if (const char* old = std::getenv("PATH")) old_ = old;
    ::setenv("PATH", path.c_str(), 1);
  }
  ~ScopedPath() { ::setenv("PATH", old_.c_str(), 1); }

 private:
  std::string old_;
};

std::string executable(const std::string& dir, const std::string& name, mode_t mode = 0755) {
  const std::string path = dir + "/" + name;
  std::ofstream(path) << "#!/bin/sh\nexit 0\n";
  ::chmod(path.c_str(), mode);
  return path;
}

TEST(FindTool, AsRootAPlantedToolOnPathIsNotRun) {
  if (::geteuid() != 0) GTEST_SKIP() << "as root only";
  if (::access("/usr/sbin/ip", X_OK) != 0 && ::access("/sbin/ip", X_OK) != 0 &&
      ::access("/usr/bin/ip", X_OK) != 0 && ::access("/bin/ip", X_OK) != 0) {
    GTEST_SKIP() << "no ip (iproute2) in the system directories";
  }
  process::TempDir dir;
  const std::string planted = executable(dir.path(), "ip");
  ScopedPath path(dir.path() + ":/usr/bin:/bin");
  const std::string found = findTool("ip");
  EXPECT_NE(found, planted);
  EXPECT_EQ(found.rfind(dir.path(), 0), std::string::npos) << found;
  EXPECT_FALSE(found.empty());
}

TEST(FindTool, WithoutRootPathComesFirst) {
  if (::geteuid() == 0) GTEST_SKIP() << "as a user only";
  process::TempDir dir;
  const std::string own = executable(dir.path(), "ip");
  ScopedPath path(dir.path());
  EXPECT_EQ(findTool("ip"), own);
}

TEST(TrustedForRoot, OnlyRootOwnedFilesInRootOwnedDirectoriesNoOneElseWrites) {
  std::string why;
  EXPECT_TRUE(trustedForRoot("/bin/sh", why)) << why;

  if (::geteuid() != 0) GTEST_SKIP() << "making files of other owners needs root";
  process::TempDir dir;  // mode 0700, ours
  std::string file = executable(dir.path(), "tool");
  EXPECT_TRUE(trustedForRoot(file, why)) << why;

  ::chmod(file.c_str(), 0775);
  EXPECT_FALSE(trustedForRoot(file, why));
  EXPECT_NE(why.find("writable by its group or others"), std::string::npos) << why;

  ::chmod(file.c_str(), 0755);
  ASSERT_EQ(::chown(file.c_str(), 65534, 65534), 0);
  EXPECT_FALSE(trustedForRoot(file, why));
  EXPECT_NE(why.find("owned by uid 65534"), std::string::npos) << why;

  ASSERT_EQ(::chown(file.c_str(), 0, 0), 0);
  ::chmod(dir.path().c_str(), 0777);
  EXPECT_FALSE(trustedForRoot(file, why));
  EXPECT_NE(why.find("directory " + dir.path()), std::string::npos) << why;
  ::chmod(dir.path().c_str(), 0700);

  // A link is judged by what it names.
  const std::string link = dir.path() + "/link";
  ASSERT_EQ(::symlink("/bin/sh", link.c_str()), 0);
  EXPECT_TRUE(trustedForRoot(link, why)) << why;
}

}  // namespace
}  // namespace distbench::cli
