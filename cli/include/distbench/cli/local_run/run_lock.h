// Who owns a sandbox: /run/distbench/<id>.lock, flock-ed for the whole run.
// The kernel drops the lock when the CLI dies, even from SIGKILL, so the
// next run (or `distbench run --clean-up`) can tell a dead run's leftovers
// from a live one's by trying the lock.
#pragma once

#include <string>
#include <vector>

namespace distbench::cli {

inline constexpr const char* kRunLockDir = "/run/distbench";

class RunLock {
 public:
  // Creates and locks DIR/<id>.lock. It is made under a dot name and renamed
  // once locked, so a sweep never sees it unlocked. Throws std::runtime_error.
  RunLock(const std::string& dir, const std::string& runId);
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;
  ~RunLock();  // unlinks, then unlocks

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
};

// Run ids of DIR/*.lock that nobody holds. Each is returned locked by us
// (fds in `held`, to close after the clean-up) so no one takes it meanwhile.
struct StaleRuns {
  std::vector<std::string> ids;
  std::vector<int> held;
  ~StaleRuns();
};
void findStaleRuns(const std::string& dir, StaleRuns& stale);

// Ids of runs whose lock is held right now.
std::vector<std::string> liveRunIds(const std::string& dir);

// 8 random hex characters from /dev/urandom.
std::string newRunId();

}  // namespace distbench::cli
