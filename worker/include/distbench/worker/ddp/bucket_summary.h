// A DDP row's gradient buckets, summarized for the report (rows[].buckets,
// docs/report-schema.md#ddp). The bucketer times every bucket in every
// backward (BucketTiming, comm/ddp_bucketer.h); each rank reduces its
// measured iterations to one median per bucket and hands only those to the
// master through the store, which takes the median over the ranks. Kept
// out of the row loop so that the arithmetic can be tested alone.
#pragma once

#include <cstdint>
#include <vector>

namespace distbench::worker {

struct BucketTiming;

// One bucket, in launch order. Times are seconds from the start of backward
// (GradientBucketer::prepareForBackward); NaN where no iteration saw the
// moment (an allreduce whose completion was never recorded).
struct BucketSummary {
  int64_t parameters = 0;
  int64_t bytes = 0;
  double firstGradient = 0;
  double launched = 0;
  double completed = 0;
};

// One rank's measured iterations (a timeline each, in order), per bucket
// the median of each time. Only iterations with the last iteration's
// layout (bucket count, parameters and bytes of each) count: the bucketer
// rebuilds its buckets after the first backward, so with no warm-up the
// first measured iteration ran on other buckets. Empty input: no buckets.
std::vector<BucketSummary> summarizeBucketTimelines(
    const std::vector<std::vector<BucketTiming>>& timelines);

// The row's buckets: per bucket, the median over the ranks of each rank's
// median. Every rank runs the same buckets (rank 0's arrival order is
// broadcast); a rank whose layout differs is an error naming it (`ranks`:
// the global rank of each entry of `perRank`).
std::vector<BucketSummary> combineRankBuckets(
    const std::vector<std::vector<BucketSummary>>& perRank, const std::vector<int>& ranks);

// For the store: five numbers per bucket, and back (throws
// std::runtime_error unless the size is a multiple of five).
std::vector<double> flattenBuckets(const std::vector<BucketSummary>& buckets);
std::vector<BucketSummary> unflattenBuckets(const std::vector<double>& flat);

}  // namespace distbench::worker
