// SIGINT, SIGTERM, SIGHUP and SIGQUIT turned into something poll() can wait
// on (the self-pipe trick): the launcher must answer a Ctrl-C, a kill, a
// closed terminal or dropped ssh session, or a Ctrl-\ with an orderly
// teardown of every rank and of the sandbox (network namespaces, cgroups),
// which cannot be done from inside a signal handler. Left to their default
// action, any of them would end the CLI with the sandbox still there.
#pragma once

#include <signal.h>

namespace distbench::cli {

class SignalWatcher {
 public:
  // Installs the handlers; the destructor puts the previous ones back. A
  // SIGHUP or SIGQUIT the process was started ignoring (nohup) stays ignored.
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
  // The handlers found, in the order of kSignals (signal_watcher.cpp).
  struct sigaction previous_[4] {};
};

}  // namespace distbench::cli
