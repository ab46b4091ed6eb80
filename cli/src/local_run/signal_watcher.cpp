#include "distbench/cli/local_run/signal_watcher.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <iterator>
#include <system_error>

namespace distbench::cli {
namespace {

volatile sig_atomic_t gWriteFd = -1;

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

void onSignal(int sig) {
  int savedErrno = errno;
  unsigned char byte = static_cast<unsigned char>(sig);
  if (gWriteFd >= 0) {
    ssize_t ignored = ::write(gWriteFd, &byte, 1);
    (void)ignored;
  }
  errno = savedErrno;
}

}  // namespace

SignalWatcher::SignalWatcher() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
    throw std::system_error(errno, std::generic_category(), "pipe2");
  readFd_ = fds[0];
  writeFd_ = fds[1];
  gWriteFd = writeFd_;

  struct sigaction action {};
  action.sa_handler = onSignal;
  sigemptyset(&action.sa_mask);
  // No SA_RESTART: poll() should return EINTR and look at the pipe at once.
  action.sa_flags = 0;
  static_assert(std::size(kSignals) == sizeof previous_ / sizeof previous_[0]);
  for (size_t i = 0; i < std::size(kSignals); ++i) {
    ::sigaction(kSignals[i], nullptr, &previous_[i]);
    // Started under nohup (SIGHUP ignored) or as a shell's background job
    // (SIGQUIT ignored): whoever started us asked not to be ended by them.
    const bool inheritedIgnore =
        previous_[i].sa_handler == SIG_IGN && (previous_[i].sa_flags & SA_SIGINFO) == 0;
    if (inheritedIgnore && (kSignals[i] == SIGHUP || kSignals[i] == SIGQUIT)) continue;
    ::sigaction(kSignals[i], &action, nullptr);
  }
}

SignalWatcher::~SignalWatcher() {
  for (size_t i = 0; i < std::size(kSignals); ++i) {
    ::sigaction(kSignals[i], &previous_[i], nullptr);
  }
  gWriteFd = -1;
  ::close(readFd_);
  ::close(writeFd_);
}

}  // namespace distbench::cli
