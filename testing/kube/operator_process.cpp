#include "distbench/testing/kube/operator_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cpprest/http_client.h>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace distbench::kubetest {

OperatorProcess::OperatorProcess(const std::string& binary, const std::vector<std::string>& args,
                                 const std::vector<std::string>& env, const std::string& logPath)
    : logPath_(logPath) {
  std::vector<std::string> argv{binary};
  argv.insert(argv.end(), args.begin(), args.end());
  const pid_t parent = getpid();
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    const int fd = open(logPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    // The test process blocks no signals the operator relies on, but undo
    // any mask it inherited anyway.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    for (const std::string& e : env) putenv(const_cast<char*>(e.c_str()));
    std::vector<char*> raw;
    for (std::string& a : argv) raw.push_back(a.data());
    raw.push_back(nullptr);
    execv(raw[0], raw.data());
    _exit(127);
  }
}

OperatorProcess::~OperatorProcess() {
  if (pid_ > 0 && !reaped_) {
    kill(pid_, SIGKILL);
    waitpid(pid_, &status_, 0);
  }
}

void OperatorProcess::signal(int sig) {
  if (pid_ > 0 && !reaped_) kill(pid_, sig);
}

int OperatorProcess::wait(int timeoutMs) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
  while (!reaped_) {
    const pid_t r = waitpid(pid_, &status_, WNOHANG);
    if (r == pid_) {
      reaped_ = true;
      break;
    }
    if (std::chrono::steady_clock::now() >= end) return INT_MIN;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (WIFEXITED(status_)) return WEXITSTATUS(status_);
  if (WIFSIGNALED(status_)) return -WTERMSIG(status_);
  return INT_MIN;
}

bool OperatorProcess::running() { return wait(0) == INT_MIN; }

std::string OperatorProcess::log() const {
  std::ifstream in(logPath_);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int freePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  const int port = ntohs(addr.sin_port);
  close(fd);
  return port;
}

HttpGet httpGet(int port, const std::string& path) {
  web::http::client::http_client_config config;
  config.set_timeout(std::chrono::seconds(5));
  web::http::client::http_client client("http://127.0.0.1:" + std::to_string(port), config);
  try {
    web::http::http_response r = client.request(web::http::methods::GET, path).get();
    return HttpGet{r.status_code(), r.extract_utf8string(true).get()};
  } catch (const std::exception&) {
    return HttpGet{};
  }
}

}  // namespace distbench::kubetest
