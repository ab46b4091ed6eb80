// A report carried through a container log. In a cluster the master writes
// its JSON report to stdout in a frame (DISTBENCH_REPORT_TO_LOG), and the
// operator reads it back from the pod's log (pods/log): the worker pods need
// neither API credentials nor a network path to anyone.
//
// The frame, one line each:
//   @@distbench-report begin v1 bytes=<N> fnv1a64=<16 hex> lines=<K>
//   @@distbench-report <base64 of the report, at most 4096 characters>   (K lines)
//   @@distbench-report end
// N and the FNV-1a 64 checksum are of the report's bytes. Base64, so a line
// holds no byte a log might mangle; short lines, because container runtimes
// split longer ones (CRI at 16 KiB) and a reader might not join them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace distbench::report {

inline constexpr const char* kReportLogPrefix = "@@distbench-report";

// The most base64 characters on one line of the frame.
inline constexpr std::size_t kReportLogLineChars = 4096;

// The frame's lines, each ending in '\n', for one write to stdout.
std::string reportLogLines(const std::string& reportJson);

// The last frame in a log is there but damaged. The message says how
// ("truncated after 3 of 5 lines (no end line)", "bad base64 ...",
// "size mismatch ...", "checksum mismatch ...", "bad begin line ...").
class ReportLogError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The last frame's begin line announces a report larger than the reader
// takes (reportFromLog's `maxReportBytes`): refused before any of it is
// decoded.
class ReportLogTooLarge : public ReportLogError {
 public:
  ReportLogTooLarge(std::size_t announced, std::size_t limit, const std::string& message)
      : ReportLogError(message), announced_(announced), limit_(limit) {}
  std::size_t announced() const { return announced_; }
  std::size_t limit() const { return limit_; }

 private:
  std::size_t announced_;
  std::size_t limit_;
};

// The report carried by the last frame in `log`, which may hold any other
// lines, before, after and between the frame's own, and "\r\n" line ends.
// nullopt when `log` holds no begin line. Throws ReportLogError when the last
// frame is damaged, even when an earlier one is whole: the last is the one
// the run meant; ReportLogTooLarge when it announces more than
// `maxReportBytes`. A frame's lines are never longer than
// kReportLogLineChars, nor more than its size needs, so what is decoded
// stays within the announced size.
std::optional<std::string> reportFromLog(const std::string& log,
                                         std::size_t maxReportBytes = SIZE_MAX);

// The most bytes of log a frame carrying a report of `reportBytes` takes:
// its begin line, its base64 lines and its end line, each with "\n".
std::size_t reportLogFrameBytes(std::size_t reportBytes);
// Its lines, begin and end line included.
std::size_t reportLogFrameLines(std::size_t reportBytes);

}  // namespace distbench::report
