// The built distbench-operator as a child process of a test: started with
// arguments and environment, output to a log file, signalled, waited for
// with a timeout. It dies with the test (PR_SET_PDEATHSIG), so a failed
// test never leaves an operator running.
#pragma once

#include <string>
#include <vector>

namespace distbench::kubetest {

class OperatorProcess {
 public:
  // Throws std::runtime_error when fork/exec fails.
  OperatorProcess(const std::string& binary, const std::vector<std::string>& args,
                  const std::vector<std::string>& env, const std::string& logPath);
  ~OperatorProcess();  // SIGKILL and reap, if still running
  OperatorProcess(const OperatorProcess&) = delete;
  OperatorProcess& operator=(const OperatorProcess&) = delete;

  void signal(int sig);
  // The exit code, -signal when killed, or nullopt-like INT_MIN when it is
  // still running after `timeoutMs`.
  int wait(int timeoutMs);
  bool running();
  int pid() const { return pid_; }
  std::string log() const;

 private:
  int pid_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  std::string logPath_;
};

// A loopback TCP port nothing listens on right now.
int freePort();
// GET http://127.0.0.1:<port><path>; status 0 when nothing answers.
struct HttpGet {
  int status = 0;
  std::string body;
};
HttpGet httpGet(int port, const std::string& path);

}  // namespace distbench::kubetest
