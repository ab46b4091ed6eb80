#include "distbench/worker/collectives/collective_results.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <stdexcept>

#include "distbench/report/percentiles.h"

namespace distbench::worker {
namespace {

template <typename... Args>
std::string format(const char* fmt, Args... args) {
  char buffer[256];
  std::snprintf(buffer, sizeof buffer, fmt, args...);
  return buffer;
}

std::string caseName(const CollectiveCase& c) {
  return std::string(api::toString(c.op)) + " " + api::toString(c.dtype) + " of " +
         std::to_string(c.bytes) + " B";
}

// Widths fit 4 GiB sizes, multi-second latencies and 10 TB/s.
constexpr const char* kHeaderFormat = "%14s%14s%12s%12s%12s%12s%14s%14s\n";
constexpr const char* kRowFormat =
    "%14" PRId64 "%14" PRId64 "%12.1f%12.1f%12.1f%12.1f%14.3f%14.3f\n";

}  // namespace

std::vector<CollectiveResult> combineRanks(
    const std::vector<CollectiveCase>& plan,
    const std::vector<std::vector<std::vector<double>>>& perRank, int ranks,
    const std::function<std::string(api::CollectiveOp)>& implementation) {
  if (ranks < 1 || perRank.size() != static_cast<size_t>(ranks)) {
    throw std::invalid_argument("collective results: " + std::to_string(perRank.size()) +
                                " ranks reported, expected " + std::to_string(ranks));
  }
  for (int r = 0; r < ranks; ++r) {
    if (perRank[r].size() != plan.size()) {
      throw std::invalid_argument("collective results: rank " + std::to_string(r) + " reported " +
                                  std::to_string(perRank[r].size()) + " cases, the plan has " +
                                  std::to_string(plan.size()));
    }
  }
  std::vector<CollectiveResult> results;
  results.reserve(plan.size());
  for (size_t i = 0; i < plan.size(); ++i) {
    const size_t iterations = perRank[0][i].size();
    CollectiveResult result;
    result.c = plan[i];
    result.samples.assign(iterations, 0.0);
    for (int r = 0; r < ranks; ++r) {
      const auto& times = perRank[r][i];
      if (times.size() != iterations || iterations == 0) {
        throw std::invalid_argument("collective results: " + caseName(plan[i]) + ": rank " +
                                    std::to_string(r) + " reported " +
                                    std::to_string(times.size()) + " iterations, rank 0 " +
                                    std::to_string(iterations));
      }
      for (size_t k = 0; k < iterations; ++k) {
        result.samples[k] = std::max(result.samples[k], times[k]);
      }
    }
    const report::Summary s = report::summarize(result.samples);
    result.p50 = s.p50;
    result.p95 = s.p95;
    result.min = s.min;
    result.max = s.max;
    result.algbwGBps = static_cast<double>(plan[i].bytes) / s.p50 / 1e9;
    result.busbwFactor = busbwFactor(plan[i].op, ranks);
    result.busbwGBps = result.algbwGBps * result.busbwFactor;
    if (implementation) result.implementation = implementation(plan[i].op);
    results.push_back(std::move(result));
  }
  return results;
}

std::string formatCollectivesTable(const std::vector<CollectiveResult>& results, int ranks) {
  std::string out;
  const CollectiveResult* previous = nullptr;
  for (const auto& r : results) {
    if (!previous || previous->c.op != r.c.op || previous->c.dtype != r.c.dtype) {
      if (previous) out += "\n";
      out += format("Benchmark: %s %s on %d ranks\n", api::toString(r.c.op),
                    api::toString(r.c.dtype), ranks);
      if (!r.implementation.empty()) out += "Implementation: " + r.implementation + "\n";
      out += format(kHeaderFormat, "size (B)", "count (elts)", "p50 (us)", "p95 (us)", "min (us)",
                    "max (us)", "algbw (GB/s)", "busbw (GB/s)");
    }
    out += format(kRowFormat, r.c.bytes, r.c.elements, r.p50 * 1e6, r.p95 * 1e6, r.min * 1e6,
                  r.max * 1e6, r.algbwGBps, r.busbwGBps);
    previous = &r;
  }
  return out;
}

}  // namespace distbench::worker
