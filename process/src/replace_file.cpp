#include "distbench/process/replace_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>
#include <stdexcept>

namespace distbench::process {
namespace {

[[noreturn]] void fail(const std::string& path, int error) {
  throw std::runtime_error("cannot write " + path + ": " + std::strerror(error));
}

// Opens a new file beside `path` under a name nobody can guess beforehand:
// O_CREAT|O_EXCL|O_NOFOLLOW fails rather than follow anything already planted
// there (a symbolic link to a file of ours included).
int createSibling(const std::string& path, std::string& name) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  std::random_device random;
  for (int attempt = 0; attempt < 16; ++attempt) {
    char suffix[17];
    std::snprintf(suffix, sizeof suffix, "%08x%08x", random(), random());
    name = dir + "/." + base + "." + suffix + ".tmp";
    const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0) return fd;
    if (errno != EEXIST) fail(path, errno);
  }
  fail(path, EEXIST);
}

void writeAll(int fd, const std::string& text, const std::string& path) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(path, errno);
    done += static_cast<size_t>(n);
  }
}

}  // namespace

void replaceFile(const std::string& path, const std::string& text) {
  // A target that is a symbolic link is refused, not replaced: it was not
  // made by distbench, and whoever planted it meant something by it. (The
  // rename below never writes through one either: it replaces the link.)
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) {
      throw std::runtime_error("refusing to write " + path +
                               ": it is a symbolic link; remove it or name another file");
    }
    if (S_ISDIR(st.st_mode)) fail(path, EISDIR);
    if (!S_ISREG(st.st_mode)) {
      throw std::runtime_error("refusing to write " + path + ": it is not a regular file");
    }
  } else if (errno != ENOENT) {
    fail(path, errno);
  }

  std::string temporary;
  const int fd = createSibling(path, temporary);
  try {
    writeAll(fd, text, path);
  } catch (...) {
    ::close(fd);
    ::unlink(temporary.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    fail(path, error);
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    fail(path, error);
  }
}

}  // namespace distbench::process
