// Where a local run's output goes. The launcher decides what each line is
// (result table, log, progress); this decides how it reaches the user, so
// tests can capture lines instead of scraping a terminal.
#pragma once

#include <string>
#include <string_view>

#include "distbench/cli/local_run/progress_display.h"

namespace distbench::cli {

class RunOutput {
 public:
  virtual ~RunOutput() = default;
  // A line of the master's stdout: the result table, passed through as is.
  virtual void result(std::string_view line) = 0;
  // A rank's log line (already prefixed) or one of distbench's own messages.
  virtual void log(std::string_view line) = 0;
  virtual void progress(int rank, const std::string& label, const Progress& progress) = 0;
};

// stdout and stderr of this process. Writes go straight to the descriptors,
// unbuffered, so result lines and log lines keep the order they happened in
// when both go to one terminal or file.
class TerminalOutput : public RunOutput {
 public:
  // showProgress: keep a status line redrawn at the bottom of errFd. Only
  // sensible when errFd is a terminal; otherwise progress is dropped, since a
  // log file full of carriage returns helps nobody.
  TerminalOutput(int outFd, int errFd, bool showProgress);
  ~TerminalOutput() override;

  void result(std::string_view line) override;
  void log(std::string_view line) override;
  void progress(int rank, const std::string& label, const Progress& progress) override;

  // Take the status line off the screen, e.g. before exiting.
  void clearStatus();

 private:
  void drawStatus();
  std::size_t terminalWidth() const;

  int outFd_;
  int errFd_;
  bool showProgress_;
  bool statusShown_ = false;
  ProgressBoard board_;
};

// The whole buffer to fd, retrying short writes and EINTR. Errors (a closed
// pipe) are dropped: losing output must not stop the supervision of ranks.
void writeAll(int fd, std::string_view data);

}  // namespace distbench::cli
