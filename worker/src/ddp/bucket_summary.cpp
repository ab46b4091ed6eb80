#include "distbench/worker/ddp/bucket_summary.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "distbench/report/percentiles.h"
#include "distbench/worker/comm/ddp_bucketer.h"

namespace distbench::worker {
namespace {

constexpr int kWordsPerBucket = 5;

// The median of the values that are numbers; NaN if none is.
double medianOfKnown(const std::vector<double>& values) {
  std::vector<double> known;
  for (double v : values)
    if (!std::isnan(v)) known.push_back(v);
  if (known.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(known.begin(), known.end());
  return report::percentileLinear(known, 50);
}

bool sameLayout(const std::vector<BucketTiming>& a, const std::vector<BucketTiming>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].parameters != b[i].parameters || a[i].bytes != b[i].bytes) return false;
  }
  return true;
}

// Per bucket, the median of each of the three times over `entries`, which
// must all have `count` buckets; `at(entry, bucket)` gives the bucket.
template <typename At>
std::vector<BucketSummary> medians(size_t entries, size_t count, At at) {
  std::vector<BucketSummary> out(count);
  for (size_t b = 0; b < count; ++b) {
    std::vector<double> first, launched, completed;
    for (size_t e = 0; e < entries; ++e) {
      const auto& bucket = at(e, b);
      first.push_back(bucket.firstGradient);
      launched.push_back(bucket.launched);
      completed.push_back(bucket.completed);
    }
    const auto& reference = at(0, b);
    out[b].parameters = static_cast<int64_t>(reference.parameters);
    out[b].bytes = reference.bytes;
    out[b].firstGradient = medianOfKnown(first);
    out[b].launched = medianOfKnown(launched);
    out[b].completed = medianOfKnown(completed);
  }
  return out;
}

}  // namespace

std::vector<BucketSummary> summarizeBucketTimelines(
    const std::vector<std::vector<BucketTiming>>& timelines) {
  if (timelines.empty()) return {};
  const std::vector<BucketTiming>& last = timelines.back();
  std::vector<const std::vector<BucketTiming>*> kept;
  for (const auto& t : timelines)
    if (sameLayout(t, last)) kept.push_back(&t);
  return medians(kept.size(), last.size(),
                 [&](size_t e, size_t b) -> const BucketTiming& { return (*kept[e])[b]; });
}

std::vector<BucketSummary> combineRankBuckets(
    const std::vector<std::vector<BucketSummary>>& perRank, const std::vector<int>& ranks) {
  if (perRank.empty()) return {};
  const std::vector<BucketSummary>& first = perRank.front();
  for (size_t r = 1; r < perRank.size(); ++r) {
    bool same = perRank[r].size() == first.size();
    for (size_t b = 0; same && b < first.size(); ++b) {
      same = perRank[r][b].parameters == first[b].parameters && perRank[r][b].bytes == first[b].bytes;
    }
    if (!same) {
      const std::string who = r < ranks.size() ? std::to_string(ranks[r]) : "#" + std::to_string(r);
      const std::string ref = ranks.empty() ? "the first rank" : "rank " + std::to_string(ranks[0]);
      throw std::runtime_error("DDP buckets: rank " + who + " reports " +
                               std::to_string(perRank[r].size()) +
                               " bucket(s) laid out unlike the " + std::to_string(first.size()) +
                               " of " + ref);
    }
  }
  return medians(perRank.size(), first.size(),
                 [&](size_t e, size_t b) -> const BucketSummary& { return perRank[e][b]; });
}

std::vector<double> flattenBuckets(const std::vector<BucketSummary>& buckets) {
  std::vector<double> flat;
  for (const BucketSummary& b : buckets) {
    flat.insert(flat.end(), {static_cast<double>(b.parameters), static_cast<double>(b.bytes),
                             b.firstGradient, b.launched, b.completed});
  }
  return flat;
}

std::vector<BucketSummary> unflattenBuckets(const std::vector<double>& flat) {
  if (flat.size() % kWordsPerBucket != 0) {
    throw std::runtime_error("DDP buckets: expected " + std::to_string(kWordsPerBucket) +
                             " values per bucket, got " + std::to_string(flat.size()) + " values");
  }
  std::vector<BucketSummary> out;
  for (size_t i = 0; i < flat.size(); i += kWordsPerBucket) {
    out.push_back({static_cast<int64_t>(flat[i]), static_cast<int64_t>(flat[i + 1]), flat[i + 2],
                   flat[i + 3], flat[i + 4]});
  }
  return out;
}

}  // namespace distbench::worker
