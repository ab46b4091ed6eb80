// Which gradients share a DDP bucket: c10d's compute_bucket_assignment_by_size
// as distbench's bucketer does it, a pure function of the tensors' sizes and
// the cap, so the policy can be read and tested without a process group.
//
// Buckets take the tensors in the order their gradients are expected: at
// first the reverse of the parameter order (gradients become ready roughly
// in reverse order of the forward pass), and once a backward pass has shown
// the real order, that one (GradientBucketer rebuilds its buckets after the
// first backward, as torch's Reducer does). The first bucket is capped at
// kFirstBucketCapMB (or bucketCapMB if smaller), the others at bucketCapMB,
// as torch's DDP does; a tensor larger than the cap gets a bucket of its
// own. Unlike torch's DDP, when the last bucket is larger than the first
// bucket's cap, its trailing tensors (the earliest layers', whose gradients
// come last) are split off into one more bucket of at most that cap, so the
// big one can launch before backward ends. Buckets only get smaller:
// bucketCapMB stays a cap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace distbench::worker {

inline constexpr double kFirstBucketCapMB = 1.0;

// `tensorBytes[k]`: the size of tensor k's gradient. Returns, per bucket in
// launch order, the indices of its tensors in the order their gradients are
// expected; every index appears exactly once.
std::vector<std::vector<size_t>> computeBucketAssignment(const std::vector<int64_t>& tensorBytes,
                                                         double bucketCapMB);

// The same policy with the expected order given: `order` lists every index of
// `tensorBytes` exactly once, in the order the gradients arrive. Throws
// std::invalid_argument if it is not such a permutation.
std::vector<std::vector<size_t>> computeBucketAssignment(const std::vector<int64_t>& tensorBytes,
                                                         double bucketCapMB,
                                                         const std::vector<size_t>& order);

}  // namespace distbench::worker
