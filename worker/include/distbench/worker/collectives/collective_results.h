// Turns every rank's per-iteration collective timings into the benchmark's
// results and its nccl-tests-like table. Pure: the master runs it on what the
// ranks report.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "distbench/worker/collectives/collective_plan.h"

namespace distbench::worker {

struct CollectiveResult {
  CollectiveCase c;
  // Per measured iteration, the slowest rank's seconds: an op is done when
  // every rank is done.
  std::vector<double> samples;
  double p50 = 0, p95 = 0, min = 0, max = 0;  // seconds, over `samples`
  double algbwGBps = 0;                       // bytes / p50 / 1e9
  double busbwFactor = 0;
  double busbwGBps = 0;  // algbwGBps * busbwFactor
  std::string implementation;
};

// perRank[rank][case][iteration], every rank with one entry per case of
// `plan` and, per case, the same number of iterations (at least one).
// `implementation` names how each op ran. Throws std::invalid_argument when
// the shapes disagree.
std::vector<CollectiveResult> combineRanks(
    const std::vector<CollectiveCase>& plan,
    const std::vector<std::vector<std::vector<double>>>& perRank, int ranks,
    const std::function<std::string(api::CollectiveOp)>& implementation);

// A block per op and dtype, in result order, latencies in microseconds:
//
//   Benchmark: allreduce float32 on 2 ranks
//   Implementation: gloo allreduce
//         size (B)  count (elts)    p50 (us)    p95 (us)    min (us)    max (us)  algbw (GB/s) ...
//         67108864      16777216     74898.8     83679.3     52144.3     84479.2         0.896 ...
//
// Blocks are separated by a blank line; the implementation line is left out
// when it is empty.
std::string formatCollectivesTable(const std::vector<CollectiveResult>& results, int ranks);

}  // namespace distbench::worker
