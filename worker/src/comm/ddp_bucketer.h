// distbench's DistributedDataParallel for the dense part. LibTorch has no C++
// DDP and Debian's c10d::Reducer is unusable, so: gradients land in flat
// buckets (which ones: bucket_assignment.h); a hook on each parameter's
// gradient copies it in, pre-divided by the world size, and hands autograd
// the bucket's view in its place, so the parameter's .grad is that view
// (torch's gradient_as_bucket_view) and the tensor autograd computed is
// freed at once. The moment a bucket is full its allreduce is launched, so
// communication overlaps the rest of backward. Buckets launch strictly in
// order: every rank must issue collectives in the same sequence. After the
// first backward the buckets are rebuilt in the order gradients really
// arrived, as torch's Reducer does; rank 0's order, broadcast to the others,
// so every rank builds the same buckets.
#pragma once

#include <ATen/core/Tensor.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "comm/process_group.h"

namespace distbench::worker {

// One bucket in one backward pass, in seconds from prepareForBackward():
// when its first gradient arrived, when its allreduce was launched (its last
// gradient arrived, or the bucket before it launched), and when the
// allreduce completed (NaN if its completion callback has not run yet).
struct BucketTiming {
  size_t parameters = 0;
  int64_t bytes = 0;
  double firstGradient = 0;
  double launched = 0;
  double completed = 0;
};

class GradientBucketer {
 public:
  // Called from a communication thread when a bucket's allreduce completes.
  using AllreduceObserver = std::function<void(double seconds, int64_t bytes)>;

  struct Event {
    enum class Kind { GradientReady, AllreduceLaunched } kind;
    int index;  // parameter index, or bucket index
  };

  GradientBucketer(std::vector<at::Tensor> parameters, ProcessGroup& group, double bucketCapMB,
                   AllreduceObserver observer = {});
  ~GradientBucketer();
  GradientBucketer(const GradientBucketer&) = delete;
  GradientBucketer& operator=(const GradientBucketer&) = delete;

  // Every replica starts from rootRank's parameters.
  void broadcastParameters(int rootRank);
  // Before each backward pass.
  void prepareForBackward();
  // After backward: waits for every bucket, after which each parameter's
  // .grad (a view into its bucket) holds the averaged gradient. Throws if a
  // parameter got none. After the first backward, also rebuilds the buckets
  // in arrival order (a collective on the first call: every rank calls it).
  void finishBackward();

  size_t bucketCount() const { return buckets_.size(); }
  std::vector<std::vector<size_t>> bucketParameterIndices() const;
  // The last backward, as seen by the thread that ran it; call these after
  // finishBackward(), from that thread. The order gradients arrived and
  // buckets launched in:
  std::vector<Event> lastStepEvents() const;
  // Per bucket in launch order, the timeline (of the buckets the backward
  // used: on the first call, those before the rebuild):
  std::vector<BucketTiming> lastStepTimeline() const;

 private:
  struct Bucket {
    std::vector<size_t> parameters;
    int64_t numel = 0;
    at::Tensor flat;
    size_t pending = 0;
    PendingOp op;
    std::chrono::steady_clock::time_point firstGradientAt;
    std::chrono::steady_clock::time_point launchedAt;
    // Written by the communication thread's completion callback.
    std::shared_ptr<std::atomic<int64_t>> completedNs;
  };

  // Buckets for `groups` (bucket_assignment.h's result), fresh flat tensors.
  void buildBuckets(const std::vector<std::vector<size_t>>& groups);
  at::Tensor onGradient(size_t parameter, const at::Tensor& grad);
  void launchReadyBuckets();
  void rebuildInArrivalOrder();

  std::vector<at::Tensor> parameters_;
  ProcessGroup& group_;
  double bucketCapMB_;
  std::shared_ptr<const AllreduceObserver> observer_;
  std::vector<int64_t> bytes_;
  std::vector<Bucket> buckets_;
  std::vector<size_t> bucketOf_;
  std::vector<int64_t> offsetOf_;  // into its bucket's flat tensor
  std::vector<bool> seen_;
  std::vector<unsigned> hookHandles_;
  size_t nextToLaunch_ = 0;
  bool rebuilt_ = false;
  std::chrono::steady_clock::time_point backwardStart_;
  std::vector<Event> events_;
  std::vector<size_t> arrival_;       // parameters, in the order gradients came
  std::vector<BucketTiming> timeline_;  // filled by finishBackward()
};

}  // namespace distbench::worker
