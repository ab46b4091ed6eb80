#include "distbench/cli/local_run/run_output.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>

namespace distbench::cli {

void writeAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

TerminalOutput::TerminalOutput(int outFd, int errFd, bool showProgress)
    : outFd_(outFd), errFd_(errFd), showProgress_(showProgress) {}

TerminalOutput::~TerminalOutput() { clearStatus(); }

void TerminalOutput::clearStatus() {
  if (!statusShown_) return;
  // Carriage return, then erase to end of line (ANSI EL).
  writeAll(errFd_, "\r\033[K");
  statusShown_ = false;
}

std::size_t TerminalOutput::terminalWidth() const {
  winsize size{};
  if (::ioctl(errFd_, TIOCGWINSZ, &size) == 0 && size.ws_col > 1) return size.ws_col - 1;
  return 79;
}

void TerminalOutput::drawStatus() {
  if (!showProgress_ || board_.empty()) return;
  std::string line = "\r" + board_.statusLine(terminalWidth()) + "\033[K";
  writeAll(errFd_, line);
  statusShown_ = true;
}

void TerminalOutput::result(std::string_view line) {
  // stdout may be the same terminal: the table must not land on the status line.
  clearStatus();
  std::string text(line);
  text += '\n';
  writeAll(outFd_, text);
  drawStatus();
}

void TerminalOutput::log(std::string_view line) {
  clearStatus();
  std::string text(line);
  text += '\n';
  writeAll(errFd_, text);
  drawStatus();
}

void TerminalOutput::progress(int rank, const std::string& label, const Progress& progress) {
  if (!showProgress_) return;
  board_.update(rank, label, progress);
  drawStatus();
}

}  // namespace distbench::cli
