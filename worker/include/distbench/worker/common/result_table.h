// The seed benchmark's result table, column for column:
//
//                sec/epoch  examples/s    sec/epoch  examples/s ...
// Trainer0:  p50:  0.376s     185/s  p75:  0.384s     182/s ...
//      All:  p50:  0.377s    1470/s ...
//
// The seed labels the rate column "epoch/sec" but prints examples per
// second; we say what it is.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace distbench::worker {

// printf into a std::string, for one table cell or row (up to 255 chars).
template <typename... Args>
std::string formatText(const char* fmt, Args... args) {
  char buffer[256];
  std::snprintf(buffer, sizeof buffer, fmt, args...);
  return buffer;
}

// One phase of a training step over the measured epochs: per epoch, the
// mean seconds per batch spent in it.
struct PhaseSamples {
  std::string name;  // the report's key: "lookup", "forward", ...
  std::vector<double> seconds;
};

struct TrainerResult {
  std::string name;             // "Trainer0"
  int rank = 0;                 // global rank
  double examplesPerEpoch = 0;  // mean over measured epochs
  std::vector<double> epochSeconds;
  std::vector<PhaseSamples> phases{};  // in step order; for the report, not the table
};

std::string formatTableHeader();
// One row: "%8s:" then, for p50/75/90/95, "  pNN:  %1.3fs  %6d/s".
std::string formatTableRow(const std::string& prefix, double examplesPerEpoch,
                           std::vector<double> seconds);
// Header, a row per trainer, then "All": every sample pooled, examples summed.
std::string formatResultTable(const std::vector<TrainerResult>& trainers);

}  // namespace distbench::worker
