// How many per-step samples a report carries per rank and phase (DDP
// perRank[].phaseSamples, HybridDDPRPC trainers[].phaseSamples and
// parameterServers[].serviceSamples), which the straggler interval
// resamples. Every sample of a long run would not fit where the operator
// stores the report: a 6000-epoch hybrid run of 2 trainers wrote 3.3 MB,
// past a ConfigMap's 1 MiB (e2e scenario 19), so the report was left in the
// master's log. 512 evenly spaced samples are plenty for an interval on an
// effect of a tenth of the step (the straggler rule's smallest), and give
// every rank of a run the same indices, since their step counts are equal.
#pragma once

#include <cstddef>
#include <vector>

namespace distbench::worker {

inline constexpr std::size_t kMaxReportedStepSamples = 512;

// At most `limit` of `samples`, in order, at indices floor(i * n / limit):
// all of them when they fit.
inline std::vector<double> thinnedSteps(const std::vector<double>& samples,
                                        std::size_t limit = kMaxReportedStepSamples) {
  const std::size_t n = samples.size();
  if (n <= limit || limit == 0) return samples;
  std::vector<double> out;
  out.reserve(limit);
  for (std::size_t i = 0; i < limit; ++i) out.push_back(samples[i * n / limit]);
  return out;
}

}  // namespace distbench::worker
