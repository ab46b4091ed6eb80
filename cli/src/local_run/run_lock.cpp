#include "distbench/cli/local_run/run_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace distbench::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSuffix = ".lock";

// "<id>" of "<id>.lock"; "" for anything else (dot files included).
std::string idOf(const fs::path& file) {
  std::string name = file.filename().string();
  const std::size_t suffix = std::strlen(kSuffix);
  if (name.empty() || name[0] == '.' || name.size() <= suffix) return "";
  if (name.compare(name.size() - suffix, suffix, kSuffix) != 0) return "";
  return name.substr(0, name.size() - suffix);
}

// Calls visit(id, fd, locked) for every lock file in `dir` that opens:
// `locked` says whether this process now holds its lock, which it can only
// if the run that made it is gone. visit owns fd.
template <typename Visit>
void forEachLockFile(const std::string& dir, Visit visit) {
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    std::string id = idOf(entry.path());
    if (id.empty()) continue;
    int fd = ::open(entry.path().c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) continue;
    visit(id, fd, ::flock(fd, LOCK_EX | LOCK_NB) == 0);
  }
}

}  // namespace

RunLock::RunLock(const std::string& dir, const std::string& runId) {
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) throw std::runtime_error("cannot make " + dir + ": " + error.message());
  const std::string temporary = dir + "/." + runId + kSuffix;
  path_ = dir + "/" + runId + kSuffix;
  fd_ = ::open(temporary.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd_ < 0) throw std::runtime_error("cannot create " + temporary + ": " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0 || ::rename(temporary.c_str(), path_.c_str()) != 0) {
    int saved = errno;
    ::unlink(temporary.c_str());
    ::close(fd_);
    throw std::runtime_error("cannot lock " + path_ + ": " + std::strerror(saved));
  }
}

RunLock::~RunLock() {
  ::unlink(path_.c_str());
  ::close(fd_);
}

StaleRuns::~StaleRuns() {
  for (int fd : held) ::close(fd);
}

void findStaleRuns(const std::string& dir, StaleRuns& stale) {
  forEachLockFile(dir, [&](const std::string& id, int fd, bool locked) {
    if (!locked) {
      ::close(fd);
      return;
    }
    stale.ids.push_back(id);
    stale.held.push_back(fd);
  });
}

std::vector<std::string> liveRunIds(const std::string& dir) {
  std::vector<std::string> ids;
  forEachLockFile(dir, [&](const std::string& id, int fd, bool locked) {
    if (!locked) ids.push_back(id);
    ::close(fd);
  });
  return ids;
}

std::string newRunId() {
  unsigned char bytes[4] = {};
  FILE* random = std::fopen("/dev/urandom", "rb");
  if (!random || std::fread(bytes, 1, sizeof bytes, random) != sizeof bytes) {
    if (random) std::fclose(random);
    throw std::runtime_error("cannot read /dev/urandom");
  }
  std::fclose(random);
  char id[9];
  std::snprintf(id, sizeof id, "%02x%02x%02x%02x", bytes[0], bytes[1], bytes[2], bytes[3]);
  return id;
}

}  // namespace distbench::cli
