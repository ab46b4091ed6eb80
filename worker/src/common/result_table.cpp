#include "distbench/worker/common/result_table.h"

#include <algorithm>
#include <cstdio>
#include <iterator>

#include "distbench/report/percentiles.h"

namespace distbench::worker {
namespace {

constexpr double kPercentiles[] = {50, 75, 90, 95};

}  // namespace

std::string formatTableHeader() {
  std::string line = formatText("%10s", "");
  for (size_t i = 0; i < std::size(kPercentiles); ++i) {
    // The seed's "%14s%10s" would glue "examples/s" (10 wide) to "sec/epoch";
    // one column of "sec/epoch" moves left so the block stays 24 wide.
    line += formatText("%13s %10s", "sec/epoch", "examples/s");
  }
  return line + "\n";
}

std::string formatTableRow(const std::string& prefix, double examplesPerEpoch,
                           std::vector<double> seconds) {
  std::sort(seconds.begin(), seconds.end());
  std::string line = formatText("%8s:", prefix.c_str());
  for (double p : kPercentiles) {
    double v = report::percentileLinear(seconds, p);
    // Python's "%6d" % float truncates toward zero, as the cast does.
    line += formatText("  p%02d:  %1.3fs  %6d/s", static_cast<int>(p), v,
                       static_cast<int>(examplesPerEpoch / v));
  }
  return line + "\n";
}

std::string formatResultTable(const std::vector<TrainerResult>& trainers) {
  std::string out = formatTableHeader();
  std::vector<double> pooled;
  double examples = 0;
  for (const auto& t : trainers) {
    out += formatTableRow(t.name, t.examplesPerEpoch, t.epochSeconds);
    pooled.insert(pooled.end(), t.epochSeconds.begin(), t.epochSeconds.end());
    examples += t.examplesPerEpoch;
  }
  if (!pooled.empty()) out += formatTableRow("All", examples, pooled);
  return out;
}

}  // namespace distbench::worker
