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

#include "distbench/plugin/kubectl_error.h"

namespace distbench::plugin {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

// Reads both pipes until both close or the deadline passes.
bool drain(int outFd, int errFd, std::string& out, std::string& err,
           std::chrono::steady_clock::time_point deadline) {
  pollfd fds[2] = {{outFd, POLLIN, 0}, {errFd, POLLIN, 0}};
  std::string* sinks[2] = {&out, &err};
  int open = 2;
  char buffer[65536];
  while (open > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    const int ready = ::poll(fds, 2, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) return false;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      }
    }
  }
  return true;
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

  int outPipe[2], errPipe[2], execPipe[2];
  if (::pipe2(outPipe, O_CLOEXEC) != 0 || ::pipe2(errPipe, O_CLOEXEC) != 0 ||
      ::pipe2(execPipe, O_CLOEXEC) != 0) {
    throw KubectlError(std::string("cannot start kubectl: pipe: ") + std::strerror(errno));
  }
  const pid_t pid = ::fork();
  if (pid < 0)
    throw KubectlError(std::string("cannot start kubectl: fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::dup2(outPipe[1], STDOUT_FILENO);
    ::dup2(errPipe[1], STDERR_FILENO);
    ::execvp(cargv[0], cargv.data());
    const int error = errno;
    (void)!::write(execPipe[1], &error, sizeof error);
    ::_exit(127);
  }
  ::close(outPipe[1]);
  ::close(errPipe[1]);
  ::close(execPipe[1]);
  int execError = 0;
  const bool notStarted = ::read(execPipe[0], &execError, sizeof execError) == sizeof execError;
  ::close(execPipe[0]);

  KubectlResult result;
  const bool drained = notStarted || drain(outPipe[0], errPipe[0], result.out, result.err,
                                           std::chrono::steady_clock::now() + limit);
  if (!drained) ::kill(pid, SIGKILL);
  if (notStarted || !drained) {
    ::close(outPipe[0]);
    ::close(errPipe[0]);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (notStarted) {
    throw KubectlError("cannot run " + binary_ + ": " + std::strerror(execError) +
                       " (install kubectl, or name it with $KUBECTL)");
  }
  if (!drained) {
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
