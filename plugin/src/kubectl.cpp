#include "distbench/plugin/kubectl.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include "distbench/plugin/kubectl_error.h"

namespace distbench::plugin {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

// kubectl's output until it has exited and what it wrote is read, or the
// deadline passes; true once it has exited (`status` set). Once it has
// exited only what is buffered is read: a helper it left behind (a
// credential plugin's daemon) may hold the pipes open for ever. Closes both.
bool collect(pid_t pid, int outFd, int errFd, std::string& out, std::string& err,
             std::chrono::steady_clock::time_point deadline, int& status) {
  pollfd fds[2] = {{outFd, POLLIN, 0}, {errFd, POLLIN, 0}};
  std::string* sinks[2] = {&out, &err};
  char buffer[65536];
  bool exited = false;
  for (;;) {
    if (!exited && ::waitpid(pid, &status, WNOHANG) == pid) exited = true;
    if (fds[0].fd < 0 && fds[1].fd < 0) {
      if (exited) break;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    const int wait = exited ? 0 : static_cast<int>(std::min<long long>(left.count(), 100));
    const int ready = ::poll(fds, 2, wait);
    if (ready < 0 && errno != EINTR) break;
    if (ready == 0 && exited) break;  // exited, and nothing left to read
    for (int i = 0; i < 2 && ready > 0; ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
      }
    }
  }
  for (pollfd& f : fds) {
    if (f.fd >= 0) ::close(f.fd);
  }
  return exited;
}

void closeAll(std::initializer_list<int> fds) {
  for (int fd : fds) {
    if (fd >= 0) ::close(fd);
  }
}

}  // namespace

Kubectl::Kubectl(std::string binary, std::vector<std::string> globalFlags)
    : binary_(std::move(binary)), globalFlags_(std::move(globalFlags)) {}

std::string Kubectl::findBinary() {
  for (const char* name : {"KUBECTL_PATH", "KUBECTL"}) {
    const std::string path = env(name);
    if (!path.empty()) return path;
  }
  return "kubectl";
}

std::vector<std::string> Kubectl::commandLine(const std::vector<std::string>& args) const {
  std::vector<std::string> argv = {binary_};
  argv.insert(argv.end(), globalFlags_.begin(), globalFlags_.end());
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

namespace {

std::vector<char*> cArgv(std::vector<std::string>& argv) {
  std::vector<char*> out;
  for (std::string& a : argv) out.push_back(a.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

KubectlResult Kubectl::run(const std::vector<std::string>& args, std::chrono::seconds limit) const {
  std::vector<std::string> argv = commandLine(args);
  std::vector<char*> cargv = cArgv(argv);

  int outPipe[2] = {-1, -1}, errPipe[2] = {-1, -1}, execPipe[2] = {-1, -1};
  if (::pipe2(outPipe, O_CLOEXEC) != 0 || ::pipe2(errPipe, O_CLOEXEC) != 0 ||
      ::pipe2(execPipe, O_CLOEXEC) != 0) {
    const int error = errno;
    closeAll({outPipe[0], outPipe[1], errPipe[0], errPipe[1], execPipe[0], execPipe[1]});
    throw KubectlError(std::string("cannot start kubectl: pipe: ") + std::strerror(error));
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int error = errno;
    closeAll({outPipe[0], outPipe[1], errPipe[0], errPipe[1], execPipe[0], execPipe[1]});
    throw KubectlError(std::string("cannot start kubectl: fork: ") + std::strerror(error));
  }
  if (pid == 0) {
    ::dup2(outPipe[1], STDOUT_FILENO);
    ::dup2(errPipe[1], STDERR_FILENO);
    ::execvp(cargv[0], cargv.data());
    const int error = errno;
    (void)!::write(execPipe[1], &error, sizeof error);
    ::_exit(127);
  }
  closeAll({outPipe[1], errPipe[1], execPipe[1]});
  int execError = 0;
  const bool notStarted = ::read(execPipe[0], &execError, sizeof execError) == sizeof execError;
  ::close(execPipe[0]);

  KubectlResult result;
  int status = 0;
  bool exited = false;
  if (notStarted) {
    closeAll({outPipe[0], errPipe[0]});
  } else {
    exited = collect(pid, outPipe[0], errPipe[0], result.out, result.err,
                     std::chrono::steady_clock::now() + limit, status);
  }
  if (!exited) {
    if (!notStarted) ::kill(pid, SIGKILL);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (notStarted) {
    throw KubectlError("cannot run " + binary_ + ": " + std::strerror(execError) +
                       " (install kubectl, or name it with $KUBECTL)");
  }
  if (!exited) {
    throw KubectlError("kubectl " + (args.empty() ? std::string() : args[0]) +
                       " did not finish within " + std::to_string(limit.count()) + " s");
  }
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

void Kubectl::exec(const std::vector<std::string>& args) const {
  std::vector<std::string> argv = commandLine(args);
  std::vector<char*> cargv = cArgv(argv);
  ::execvp(cargv[0], cargv.data());
  throw KubectlError("cannot run " + binary_ + ": " + std::strerror(errno) +
                     " (install kubectl, or name it with $KUBECTL)");
}

std::string Kubectl::output(const std::vector<std::string>& args,
                            std::chrono::seconds limit) const {
  KubectlResult r = run(args, limit);
  if (!r.ok()) throw KubectlError(explainKubectlFailure(args, r));
  return std::move(r.out);
}

}  // namespace distbench::plugin
