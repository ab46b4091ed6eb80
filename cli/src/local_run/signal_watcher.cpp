#include "distbench/cli/local_run/signal_watcher.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace distbench::cli {
namespace {

volatile sig_atomic_t gWriteFd = -1;

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
  ::sigaction(SIGINT, &action, &previousInt_);
  ::sigaction(SIGTERM, &action, &previousTerm_);
}

SignalWatcher::~SignalWatcher() {
  ::sigaction(SIGINT, &previousInt_, nullptr);
  ::sigaction(SIGTERM, &previousTerm_, nullptr);
  gWriteFd = -1;
  ::close(readFd_);
  ::close(writeFd_);
}

}  // namespace distbench::cli
