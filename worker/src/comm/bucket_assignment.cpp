#include "distbench/worker/comm/bucket_assignment.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace distbench::worker {
namespace {

int64_t capBytes(double megabytes) {
  return std::max<int64_t>(1, static_cast<int64_t>(megabytes * 1024.0 * 1024.0));
}

// The last bucket can only launch once backward is over, so all of its
// allreduce is exposed. Sized by the cap alone it can hold most of a model
// (ResNet-18 at 25 MB: ~19 MB of layer2..4 behind conv1's small gradient);
// splitting off the earliest layers' gradients into a final bucket no larger
// than the first lets the big one launch while they are still being
// computed.
void splitLastBucket(std::vector<std::vector<size_t>>& buckets,
                     const std::vector<int64_t>& tensorBytes, int64_t tailCap) {
  if (buckets.empty() || buckets.back().size() < 2) return;
  std::vector<size_t>& last = buckets.back();
  int64_t total = 0;
  for (size_t k : last) total += tensorBytes[k];
  if (total <= tailCap) return;
  // Gradients arrive in the bucket's order; the tail is its suffix.
  size_t split = last.size() - 1;
  int64_t tail = tensorBytes[last[split]];
  while (split > 1 && tail + tensorBytes[last[split - 1]] <= tailCap) {
    tail += tensorBytes[last[--split]];
  }
  std::vector<size_t> suffix(last.begin() + split, last.end());
  last.resize(split);
  buckets.push_back(std::move(suffix));
}

}  // namespace

std::vector<std::vector<size_t>> computeBucketAssignment(const std::vector<int64_t>& tensorBytes,
                                                         double bucketCapMB,
                                                         const std::vector<size_t>& order) {
  if (order.size() != tensorBytes.size()) {
    throw std::invalid_argument("bucket assignment: the order names " +
                                std::to_string(order.size()) + " tensors, expected " +
                                std::to_string(tensorBytes.size()));
  }
  std::vector<bool> named(order.size(), false);
  for (size_t k : order) {
    if (k >= order.size() || named[k]) {
      throw std::invalid_argument("bucket assignment: the order is not a permutation (tensor " +
                                  std::to_string(k) + ")");
    }
    named[k] = true;
  }
  const int64_t firstCap = capBytes(std::min(kFirstBucketCapMB, bucketCapMB));
  const int64_t cap = capBytes(bucketCapMB);
  std::vector<std::vector<size_t>> buckets;
  int64_t bytes = 0;
  for (size_t k : order) {
    const int64_t limit = buckets.size() <= 1 ? firstCap : cap;
    if (buckets.empty() || (bytes > 0 && bytes + tensorBytes[k] > limit)) {
      buckets.emplace_back();
      bytes = 0;
    }
    buckets.back().push_back(k);
    bytes += tensorBytes[k];
  }
  splitLastBucket(buckets, tensorBytes, firstCap);
  return buckets;
}

std::vector<std::vector<size_t>> computeBucketAssignment(const std::vector<int64_t>& tensorBytes,
                                                         double bucketCapMB) {
  std::vector<size_t> reverse(tensorBytes.size());
  for (size_t i = 0; i < reverse.size(); ++i) reverse[i] = reverse.size() - 1 - i;
  return computeBucketAssignment(tensorBytes, bucketCapMB, reverse);
}

}  // namespace distbench::worker
