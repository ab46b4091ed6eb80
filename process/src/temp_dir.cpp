#include "distbench/process/temp_dir.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>

#include <cerrno>
#include <system_error>
#include <vector>

namespace distbench::process {
namespace {

int removeEntry(const char* path, const struct stat*, int, struct FTW*) {
  ::remove(path);  // best effort: what cannot go stays, the rest still goes
  return 0;
}

}  // namespace

TempDir::TempDir(const std::string& prefix) {
  const char* base = ::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/" + prefix + "XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (!::mkdtemp(buffer.data())) {
    throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
  }
  path_ = buffer.data();
}

// nftw, not std::filesystem::remove_all: a test binary that links PyTorch's
// wheel can have remove_all bound to the wheel's exported copy, which jumps
// to address 0 (seen twice on the lent H200, the second time with
// cmake/RuntimeFirst.cmake's libstdc++-first order not taking effect there).
// Depth first, symbolic links removed rather than followed.
TempDir::~TempDir() {
  ::nftw(path_.c_str(), removeEntry, 16, FTW_DEPTH | FTW_PHYS);
}

}  // namespace distbench::process
