// Whether a process has ended, for tests that check nothing was left behind
// after a child, or a child's children, should have been stopped.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cerrno>
#include <fstream>
#include <string>

namespace distbench::process {

// True when the process no longer runs. A zombie counts as gone: an orphan
// waits for init to reap it, and in a container init may never do so.
inline bool processGone(pid_t pid) {
  if (pid <= 0) return false;
  if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  // "PID (COMM) STATE ...": COMM may hold spaces and parentheses.
  std::size_t close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

}  // namespace distbench::process
