// Epoch progress from the ranks. A worker started with DISTBENCH_PROGRESS=1
// writes "@@distbench-progress epoch=<n> total=<m>" lines to its stderr; they
// are a channel to `distbench run`, not log output, so the launcher takes
// them out of the log and, on a terminal, shows one status line instead.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace distbench::cli {

inline constexpr std::string_view kProgressMarker = "@@distbench-progress";

struct Progress {
  long epoch = 0;
  long total = 0;
};

// The progress a line carries, or nothing when it is not a well-formed
// progress line (such a line is shown as ordinary log output, so a worker
// bug cannot make output disappear). Unknown key=value fields are ignored so
// a newer worker can add some.
std::optional<Progress> parseProgressLine(std::string_view line);

// The latest progress of every rank that reported, in rank order.
class ProgressBoard {
 public:
  void update(int rank, const std::string& label, const Progress& progress);
  bool empty() const { return entries_.empty(); }

  // "epochs  trainer0 12/105  trainer1 11/105"; when that is wider than
  // `width` columns, a summary of the slowest and fastest rank, cut to width.
  std::string statusLine(std::size_t width) const;

 private:
  struct Entry {
    std::string label;
    Progress progress;
  };
  std::map<int, Entry> entries_;
};

}  // namespace distbench::cli
