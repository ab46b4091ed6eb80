// A private directory (a local run's config file, a test's scratch files),
// removed with everything in it when its owner goes, whichever way that ends.
#pragma once

#include <string>

namespace distbench::process {

class TempDir {
 public:
  // Under $TMPDIR, else /tmp. Throws std::system_error.
  explicit TempDir(const std::string& prefix = "distbench-");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace distbench::process
