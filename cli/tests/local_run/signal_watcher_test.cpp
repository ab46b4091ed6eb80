// The signals that end a local run reach the launcher as bytes on a pipe
// (signal_watcher.h), SIGHUP and SIGQUIT as well as SIGINT and SIGTERM, so
// a closed terminal tears the sandbox down like a Ctrl-C. The sandbox case
// itself: sandbox_run_test.cpp (root only).
#include "distbench/cli/local_run/signal_watcher.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <vector>

namespace distbench::cli {
namespace {

// The signal numbers waiting on the watcher's pipe.
std::vector<int> arrived(const SignalWatcher& watcher) {
  std::vector<int> out;
  pollfd in{watcher.fd(), POLLIN, 0};
  while (::poll(&in, 1, 100) > 0) {
    unsigned char byte = 0;
    if (::read(watcher.fd(), &byte, 1) != 1) break;
    out.push_back(byte);
  }
  return out;
}

TEST(SignalWatcher, EachEndingSignalArrivesAsABytePlusThePreviousHandlersReturn) {
  {
    SignalWatcher watcher;
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) ::raise(sig);
    EXPECT_EQ(arrived(watcher), (std::vector<int>{SIGINT, SIGTERM, SIGHUP, SIGQUIT}));
  }
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
    struct sigaction now {};
    ::sigaction(sig, nullptr, &now);
    EXPECT_EQ(now.sa_handler, SIG_DFL) << sig;
  }
}

// Under nohup SIGHUP is ignored when distbench starts: it stays ignored.
TEST(SignalWatcher, ASignalStartedIgnoredStaysIgnored) {
  ::signal(SIGHUP, SIG_IGN);
  {
    SignalWatcher watcher;
    ::raise(SIGHUP);
    ::raise(SIGINT);
    EXPECT_EQ(arrived(watcher), std::vector<int>{SIGINT});
  }
  struct sigaction now {};
  ::sigaction(SIGHUP, nullptr, &now);
  EXPECT_EQ(now.sa_handler, SIG_IGN);
  ::signal(SIGHUP, SIG_DFL);
}

}  // namespace
}  // namespace distbench::cli
