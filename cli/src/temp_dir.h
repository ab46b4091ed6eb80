// A private directory for one local run (the rendered config file), removed
// with everything in it when the run is over, whichever way it ends.
#pragma once

#include <string>

namespace distbench::cli {

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

}  // namespace distbench::cli
