// One child process in its own process group, with its stdout and stderr on
// pipes. Its own group, so that a signal meant for one rank reaches whatever
// that rank started too, and so that a Ctrl-C on the terminal reaches only
// distbench, which then stops the ranks in order.
#pragma once

#include <sys/types.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace distbench::process {

struct ExitStatus {
  bool signaled = false;
  int code = 0;    // exit status when !signaled
  int signal = 0;  // terminating signal when signaled

  // User plus system CPU seconds of the child and of the descendants it
  // waited for (wait4's rusage); -1 where unknown (an abandoned child).
  double cpuSeconds = -1;

  bool success() const { return !signaled && code == 0; }
  // "exited with status 1", "killed by signal 9 (Killed)"
  std::string describe() const;
};

class SpawnError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What the child does to itself between fork and exec, so that not one
// instruction of the program runs outside the place it was meant for.
struct SpawnOptions {
  // An open cgroup.procs of a cgroup: the child writes "0" to it, which
  // moves the child itself in (CPU caps for `distbench run --slow`).
  int cgroupProcsFd = -1;
  // An open /run/netns/NAME: the child setns()es into that network
  // namespace (`distbench run --links`).
  int netnsFd = -1;
};

class ChildProcess {
 public:
  using Env = std::vector<std::pair<std::string, std::string>>;

  // Starts argv[0] (looked up in PATH when it has no '/') with this process's
  // environment plus `env`, which wins over variables of the same name.
  // stdin is /dev/null. Throws SpawnError when the program cannot be
  // executed, or when a SpawnOptions step fails (the message names it); the
  // child is then already reaped.
  static ChildProcess spawn(const std::vector<std::string>& argv, const Env& env,
                            const SpawnOptions& options = {});

  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  // Still running: SIGKILLs the group and reaps it. The last line of defence
  // against leaving a rank behind, e.g. when an exception unwinds.
  ~ChildProcess();

  pid_t pid() const { return pid_; }
  bool running() const { return !exit_.has_value() && pid_ > 0; }
  const std::optional<ExitStatus>& exitStatus() const { return exit_; }

  // Non-blocking read ends, -1 once closed.
  int stdoutFd() const { return stdoutFd_; }
  int stderrFd() const { return stderrFd_; }
  void closeStdout();
  void closeStderr();

  // Non-blocking. When the child has exited: kills what is left of its group
  // (helpers it started must not outlive it, nor hold its pipes open), reaps
  // it and returns how it ended.
  std::optional<ExitStatus> pollExit();

  // Sends sig to the whole group; nothing once the child is reaped, since
  // the group id may then belong to someone else.
  void signalGroup(int sig);

  // Gives up on a child that did not die even after SIGKILL (stuck in the
  // kernel): forgets it without waiting, so that the caller's deadline holds.
  // The kernel finishes the kill whenever it can; init reaps it.
  void abandon();

 private:
  ChildProcess() = default;
  void release();

  pid_t pid_ = -1;
  int stdoutFd_ = -1;
  int stderrFd_ = -1;
  std::optional<ExitStatus> exit_;
};

}  // namespace distbench::process
