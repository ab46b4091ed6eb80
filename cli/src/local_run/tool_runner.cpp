#include "distbench/cli/local_run/tool_runner.h"

#include <limits.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "distbench/process/child_process.h"
#include "distbench/process/temp_dir.h"

namespace distbench::cli {
namespace {

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

void drain(int fd, std::string& into) {
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(fd, buffer, sizeof buffer)) > 0) into.append(buffer, static_cast<size_t>(n));
}

}  // namespace

ToolResult runTool(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
  ToolResult result;
  std::string out;
  std::string err;
  try {
    process::ChildProcess child = process::ChildProcess::spawn(argv, {{"LC_ALL", "C"}});
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (child.stdoutFd() >= 0 || child.stderrFd() >= 0) {
      pollfd fds[2] = {{child.stdoutFd(), POLLIN, 0}, {child.stderrFd(), POLLIN, 0}};
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      deadline - std::chrono::steady_clock::now())
                      .count();
      if (left <= 0) break;
      if (::poll(fds, 2, static_cast<int>(left)) < 0 && errno != EINTR) break;
      for (int i = 0; i < 2; ++i) {
        if (fds[i].fd < 0 || fds[i].revents == 0) continue;
        std::string& into = i == 0 ? out : err;
        char buffer[4096];
        ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
        if (n > 0) {
          into.append(buffer, static_cast<size_t>(n));
        } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
          if (i == 0) child.closeStdout(); else child.closeStderr();
        }
      }
    }
    while (!child.pollExit()) {
      if (std::chrono::steady_clock::now() > deadline) {
        result.error = argv[0] + " did not finish within " +
                       std::to_string(timeout.count() / 1000) + " s";
        return result;  // ~ChildProcess kills and reaps it
      }
      ::usleep(5000);
    }
    if (child.stdoutFd() >= 0) drain(child.stdoutFd(), out);
    if (child.stderrFd() >= 0) drain(child.stderrFd(), err);
    result.ok = child.exitStatus()->success();
    result.output = out + err;
    result.error = trimmed(err.empty() ? out : err);
    if (!result.ok && result.error.empty()) result.error = child.exitStatus()->describe();
  } catch (const std::exception& e) {
    result.error = e.what();
  }
  return result;
}

ToolResult runBatch(std::vector<std::string> argv, const std::vector<std::string>& lines) {
  if (lines.empty()) return ToolResult{true, "", ""};
  process::TempDir dir;
  const std::string file = dir.path() + "/batch";
  {
    std::ofstream out(file);
    for (const std::string& line : lines) out << line << "\n";
  }
  argv.push_back("-batch");
  argv.push_back(file);
  return runTool(argv);
}

std::vector<std::string> toolSearchPath(bool root, const char* envPath) {
  if (root) return {"/usr/sbin", "/usr/bin", "/sbin", "/bin"};
  std::vector<std::string> dirs;
  std::stringstream path(envPath ? envPath : "");
  std::string dir;
  while (std::getline(path, dir, ':')) {
    // An empty entry means the working directory: never for a tool.
    if (!dir.empty()) dirs.push_back(dir);
  }
  dirs.push_back("/usr/sbin");
  dirs.push_back("/sbin");
  return dirs;
}

namespace {

bool rootOnly(const std::string& path, const char* what, std::string& why) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    why = std::string(what) + " " + path + ": " + std::strerror(errno);
    return false;
  }
  if (st.st_uid != 0) {
    why = std::string(what) + " " + path + " is owned by uid " + std::to_string(st.st_uid) +
          ", not root";
    return false;
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    why = std::string(what) + " " + path + " is writable by its group or others";
    return false;
  }
  return true;
}

}  // namespace

bool trustedForRoot(const std::string& path, std::string& why) {
  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved) == nullptr) {
    why = path + ": " + std::strerror(errno);
    return false;
  }
  const std::string file = resolved;
  const std::string dir = file.substr(0, std::max<size_t>(1, file.rfind('/')));
  return rootOnly(file, "file", why) && rootOnly(dir, "directory", why);
}

std::string findTool(const std::string& name) {
  const bool root = ::geteuid() == 0;
  for (const std::string& dir : toolSearchPath(root, std::getenv("PATH"))) {
    std::string candidate = dir + "/" + name;
    if (::access(candidate.c_str(), X_OK) != 0) continue;
    std::string why;
    if (root && !trustedForRoot(candidate, why)) continue;
    return candidate;
  }
  return "";
}

std::string toolSearchPlaces() {
  return ::geteuid() == 0
             ? "/usr/sbin, /usr/bin, /sbin or /bin (as root, PATH is not searched), root-owned "
               "and writable by no one else"
             : "PATH, /usr/sbin or /sbin";
}

}  // namespace distbench::cli
