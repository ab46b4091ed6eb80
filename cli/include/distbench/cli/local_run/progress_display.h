// Progress from the ranks (api/progress_line.h): `distbench run` takes the
// ranks' progress lines out of their logs and, on a terminal, shows one
// status line instead.
#pragma once

#include <cstddef>
#include <map>
#include <string>

#include "distbench/api/progress_line.h"

namespace distbench::cli {

using api::Progress;

// The latest progress of every rank that reported, in rank order.
class ProgressBoard {
 public:
  void update(int rank, const std::string& label, const Progress& progress);
  bool empty() const { return entries_.empty(); }

  // "epochs  trainer0 12/105  trainer1 11/105" (the unit of the lowest rank);
  // when that is wider than `width` columns, a summary of the slowest and
  // fastest rank, cut to width.
  std::string statusLine(std::size_t width) const;

 private:
  struct Entry {
    std::string label;
    Progress progress;
  };
  std::map<int, Entry> entries_;
};

}  // namespace distbench::cli
