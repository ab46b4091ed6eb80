// How far a rank has got, told on its stderr as one line:
//   @@distbench-progress done=<n> total=<m> unit=<word>
// Ranks print it only under DISTBENCH_PROGRESS (worker_env.h), at most about
// once a second. `distbench run` takes these lines out of the log and shows
// a status line; the operator reads trainer 0's last one from its log into
// status.progress. A channel rather than a log, so the grammar is strict: a
// malformed line is left as log output, never swallowed.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace distbench::api {

inline constexpr std::string_view kProgressMarker = "@@distbench-progress";

struct Progress {
  long done = 0;
  long total = 0;
  // What is counted, plural and lower case: epochs, iterations, rounds.
  std::string unit = "epochs";

  bool operator==(const Progress& o) const {
    return done == o.done && total == o.total && unit == o.unit;
  }
  bool operator!=(const Progress& o) const { return !(*this == o); }
};

// The line for `progress`, with its newline.
std::string formatProgressLine(const Progress& progress);

// The progress a line carries, or nothing when it is not a well-formed
// progress line: the marker alone at the start, then key=value fields of
// which done (or `epoch`, as workers before units wrote it) and total are
// counts with done <= total, and unit, when present, a lower-case word.
// Other keys are ignored, so a newer worker can add some.
std::optional<Progress> parseProgressLine(std::string_view line);

// The last well-formed progress line of `log` (lines ending in '\n'; a last
// line without one is cut and not read).
std::optional<Progress> lastProgress(std::string_view log);

}  // namespace distbench::api
