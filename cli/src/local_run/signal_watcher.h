// SIGINT and SIGTERM turned into something poll() can wait on (the self-pipe
// trick): the launcher must answer a Ctrl-C with an orderly teardown of every
// rank, which cannot be done from inside a signal handler.
#pragma once

#include <signal.h>

namespace distbench::cli {

class SignalWatcher {
 public:
  // Installs the handlers; the destructor puts the previous ones back.
  // One instance at a time (the handler has nowhere else to find the pipe).
  SignalWatcher();
  ~SignalWatcher();
  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;

  // Readable when a signal arrived; each byte read is one signal number.
  int fd() const { return readFd_; }

 private:
  int readFd_ = -1;
  int writeFd_ = -1;
  struct sigaction previousInt_ {};
  struct sigaction previousTerm_ {};
};

}  // namespace distbench::cli
