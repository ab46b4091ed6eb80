#include "distbench/process/child_process.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <system_error>

extern char** environ;

namespace distbench::process {
namespace {

void closeFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

struct Pipe {
  int read = -1;
  int write = -1;
  Pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe2");
    read = fds[0];
    write = fds[1];
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  ~Pipe() {
    closeFd(read);
    closeFd(write);
  }
};

ExitStatus fromWaitStatus(int status, const rusage& usage) {
  ExitStatus exit;
  exit.cpuSeconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                    static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  if (WIFSIGNALED(status)) {
    exit.signaled = true;
    exit.signal = WTERMSIG(status);
  } else {
    exit.code = WEXITSTATUS(status);
  }
  return exit;
}

// Everything the child needs is built before fork(): between fork and exec
// only async-signal-safe calls are allowed, so no allocation there.
std::vector<std::string> mergedEnvironment(const ChildProcess::Env& overrides) {
  std::set<std::string> overridden;
  for (const auto& [name, value] : overrides) overridden.insert(name);
  std::vector<std::string> merged;
  for (char** entry = environ; entry && *entry; ++entry) {
    std::string variable(*entry);
    std::string name = variable.substr(0, variable.find('='));
    if (!overridden.count(name)) merged.push_back(std::move(variable));
  }
  for (const auto& [name, value] : overrides) merged.push_back(name + "=" + value);
  return merged;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> result;
  for (auto& s : strings) result.push_back(s.data());
  result.push_back(nullptr);
  return result;
}

// What failed in the child, so that the parent's error names the step.
enum ChildStep : int { kStepExec = 0, kStepCgroup = 1, kStepNetns = 2, kStepSetup = 3 };

struct ChildFailure {
  int step;
  int error;
};

[[noreturn]] void childFail(int errorPipe, int error, int step = kStepSetup) {
  ChildFailure failure{step, error};
  ssize_t ignored = ::write(errorPipe, &failure, sizeof failure);
  (void)ignored;
  ::_exit(127);
}

std::string describeFailure(const std::string& program, const ChildFailure& failure) {
  const std::string reason = std::strerror(failure.error);
  switch (failure.step) {
    case kStepCgroup:
      return program + ": cannot move into its cgroup (write to cgroup.procs): " + reason;
    case kStepNetns:
      return program + ": cannot enter its network namespace (setns): " + reason;
    default:
      return program + ": " + reason;
  }
}

pid_t waitFor(pid_t pid, int& status, rusage& usage, int flags) {
  pid_t result;
  do {
    result = ::wait4(pid, &status, flags, &usage);
  } while (result < 0 && errno == EINTR);
  return result;
}

// The child's stdout and stderr, and the exec status pipe (CLOEXEC: EOF
// means exec succeeded, a ChildFailure that it did not).
struct ChildPipes {
  Pipe out;
  Pipe err;
  Pipe execStatus;
};

// In the child, between fork and exec: only async-signal-safe calls.
// Into the cgroup first, so that even the rest of this setup is capped;
// "0" means the writer itself.
void enterSandbox(const SpawnOptions& options, int errorPipe) {
  if (options.cgroupProcsFd >= 0 && ::write(options.cgroupProcsFd, "0", 1) != 1) {
    childFail(errorPipe, errno, kStepCgroup);
  }
  if (options.netnsFd >= 0 && ::setns(options.netnsFd, CLONE_NEWNET) != 0) {
    childFail(errorPipe, errno, kStepNetns);
  }
}

// Handlers are reset by exec, ignored signals are not: a worker that
// inherits SIGPIPE ignored or SIGTERM ignored would misbehave. Then the
// mask blocked across fork is lifted.
void resetSignals() {
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig == SIGKILL || sig == SIGSTOP) continue;
    ::signal(sig, SIG_DFL);
  }
  sigset_t none;
  ::sigemptyset(&none);
  ::pthread_sigmask(SIG_SETMASK, &none, nullptr);
}

void redirectStdio(const ChildPipes& pipes) {
  const int errorPipe = pipes.execStatus.write;
  int devNull = ::open("/dev/null", O_RDONLY);
  if (devNull < 0) childFail(errorPipe, errno);
  if (::dup2(devNull, STDIN_FILENO) < 0) childFail(errorPipe, errno);
  if (::dup2(pipes.out.write, STDOUT_FILENO) < 0) childFail(errorPipe, errno);
  if (::dup2(pipes.err.write, STDERR_FILENO) < 0) childFail(errorPipe, errno);
}

[[noreturn]] void execChild(char* const* argv, char* const* envp, const SpawnOptions& options,
                            const ChildPipes& pipes, pid_t parent) {
  ::setpgid(0, 0);
  // If distbench dies without tearing down (SIGKILL, a crash), the rank
  // goes too instead of running on, holding ports, with no one to report to.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);  // parent died before prctl
  enterSandbox(options, pipes.execStatus.write);
  resetSignals();
  redirectStdio(pipes);
  ::execvpe(argv[0], argv, envp);
  childFail(pipes.execStatus.write, errno, kStepExec);
}

// Forks with every signal blocked, so that our handlers (SIGINT, SIGTERM)
// cannot run in the child before it resets them; the child execs.
pid_t forkChild(char* const* argv, char* const* envp, const SpawnOptions& options,
                const ChildPipes& pipes) {
  const pid_t parent = ::getpid();
  sigset_t all;
  sigset_t previous;
  ::sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &previous);
  pid_t pid = ::fork();
  if (pid < 0) {
    int error = errno;
    ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    throw std::system_error(error, std::generic_category(), "fork");
  }
  if (pid == 0) execChild(argv, envp, options, pipes, parent);
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  // Also from this side, so the group exists whichever process runs first;
  // EACCES once the child has exec'd is expected and harmless.
  ::setpgid(pid, pid);
  return pid;
}

// Waits for the exec: EOF on the status pipe. A failure reaps the child
// and throws SpawnError naming the step.
void awaitExec(pid_t pid, int execStatusRead, const std::string& program) {
  ChildFailure failure{};
  ssize_t n;
  do {
    n = ::read(execStatusRead, &failure, sizeof failure);
  } while (n < 0 && errno == EINTR);
  if (n > 0) {
    int status = 0;
    rusage usage{};
    waitFor(pid, status, usage, 0);
    throw SpawnError(describeFailure(program, failure));
  }
}

}  // namespace

std::string ExitStatus::describe() const {
  if (!signaled) return "exited with status " + std::to_string(code);
  const char* name = ::strsignal(signal);
  std::string text = "killed by signal " + std::to_string(signal);
  if (name) text += std::string(" (") + name + ")";
  return text;
}

ChildProcess ChildProcess::spawn(const std::vector<std::string>& argv, const Env& env,
                                 const SpawnOptions& options) {
  if (argv.empty()) throw SpawnError("empty command");
  // Everything the child needs is built before fork (mergedEnvironment).
  std::vector<std::string> args = argv;
  std::vector<char*> argPointers = pointers(args);
  std::vector<std::string> environment = mergedEnvironment(env);
  std::vector<char*> envPointers = pointers(environment);

  ChildPipes pipes;
  const pid_t pid = forkChild(argPointers.data(), envPointers.data(), options, pipes);
  closeFd(pipes.out.write);
  closeFd(pipes.err.write);
  closeFd(pipes.execStatus.write);
  awaitExec(pid, pipes.execStatus.read, argv[0]);

  ChildProcess child;
  child.pid_ = pid;
  child.stdoutFd_ = pipes.out.read;
  child.stderrFd_ = pipes.err.read;
  pipes.out.read = -1;
  pipes.err.read = -1;
  for (int fd : {child.stdoutFd_, child.stderrFd_}) {
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  }
  return child;
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(other.pid_),
      stdoutFd_(other.stdoutFd_),
      stderrFd_(other.stderrFd_),
      exit_(other.exit_) {
  other.pid_ = -1;
  other.stdoutFd_ = -1;
  other.stderrFd_ = -1;
}

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this != &other) {
    release();
    pid_ = other.pid_;
    stdoutFd_ = other.stdoutFd_;
    stderrFd_ = other.stderrFd_;
    exit_ = other.exit_;
    other.pid_ = -1;
    other.stdoutFd_ = -1;
    other.stderrFd_ = -1;
  }
  return *this;
}

ChildProcess::~ChildProcess() { release(); }

void ChildProcess::release() {
  if (running()) {
    ::kill(-pid_, SIGKILL);
    int status = 0;
    rusage usage{};
    waitFor(pid_, status, usage, 0);
    exit_ = fromWaitStatus(status, usage);
  }
  closeStdout();
  closeStderr();
}

void ChildProcess::closeStdout() { closeFd(stdoutFd_); }
void ChildProcess::closeStderr() { closeFd(stderrFd_); }

std::optional<ExitStatus> ChildProcess::pollExit() {
  if (!running()) return exit_;
  siginfo_t info{};
  // WNOWAIT leaves the child a zombie: its pid, and with it the group id,
  // stays ours while we kill the rest of the group.
  while (::waitid(P_PID, pid_, &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    if (errno != EINTR) throw std::system_error(errno, std::generic_category(), "waitid");
  }
  if (info.si_pid == 0) return std::nullopt;
  ::kill(-pid_, SIGKILL);
  int status = 0;
  rusage usage{};
  if (waitFor(pid_, status, usage, 0) < 0) {
    throw std::system_error(errno, std::generic_category(), "wait4");
  }
  exit_ = fromWaitStatus(status, usage);
  return exit_;
}

void ChildProcess::signalGroup(int sig) {
  if (running()) ::kill(-pid_, sig);
}

void ChildProcess::abandon() {
  pid_ = -1;
  closeStdout();
  closeStderr();
}

}  // namespace distbench::process
