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
// so every rank builds the same buckets. Buckets live on the parameters'
// device; on a GPU the allreduces run on the backend's stream and
// finishBackward() only orders the current stream after them, as the
// Reducer does, so the CPU goes on queueing the optimizer step.
#pragma once

#include <ATen/core/Tensor.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "distbench/worker/comm/process_group.h"
#include "distbench/worker/gpu/step_clock.h"

namespace distbench::worker {

// One bucket in one backward pass, in seconds from prepareForBackward():
// when its first gradient arrived, when its allreduce was launched (its last
// gradient arrived, or the bucket before it launched), and when the
// allreduce completed (NaN if its completion callback has not run yet). On
// a GPU, as the device saw them (CUDA events: step_clock.h).
struct BucketTiming {
  size_t parameters = 0;
  int64_t bytes = 0;
  double firstGradient = 0;
  double launched = 0;
  double completed = 0;
};

class GradientBucketer {
 public:
  struct Event {
    enum class Kind { GradientReady, AllreduceLaunched } kind;
    int index;  // parameter index, or bucket index
  };

  // `clock` times the buckets (lastStepTimeline): the step's own clock,
  // whose owner starts each step before prepareForBackward() and settles it
  // before reading the timeline; nullptr: a CPU clock of the bucketer's own.
  // The parameters must be contiguous float32 tensors on group's device.
  GradientBucketer(std::vector<at::Tensor> parameters, ProcessGroup& group, double bucketCapMB,
                   std::shared_ptr<StepClock> clock = nullptr);
  ~GradientBucketer();
  GradientBucketer(const GradientBucketer&) = delete;
  GradientBucketer& operator=(const GradientBucketer&) = delete;

  // Every replica starts from rootRank's parameters.
  void broadcastParameters(int rootRank);
  // Before each backward pass.
  void prepareForBackward();
  // After backward: waits for every bucket (on a GPU: orders the current
  // stream after them, process_group.h's enqueueWait), after which each
  // parameter's .grad (a view into its bucket) holds the averaged gradient.
  // Throws if a parameter got none. After the first backward, also rebuilds
  // the buckets in arrival order (a collective on the first call: every
  // rank calls it).
  void finishBackward();

  size_t bucketCount() const { return buckets_.size(); }
  std::vector<std::vector<size_t>> bucketParameterIndices() const;
  // The last backward, as seen by the thread that ran it; call these after
  // finishBackward(), from that thread. The order gradients arrived and
  // buckets launched in:
  std::vector<Event> lastStepEvents() const;
  // Per bucket in launch order, the timeline (of the buckets the backward
  // used: on the first call, those before the rebuild). With a clock of the
  // caller's, only once that clock has settled past the step:
  std::vector<BucketTiming> lastStepTimeline() const;

 private:
  // A bucket's moments in one backward, as marks of the clock.
  struct BucketMarks {
    size_t parameters = 0;
    int64_t bytes = 0;
    StepClock::Mark firstGradient = -1;
    StepClock::Mark launched = -1;
    // Written by the communication thread's completion callback; -1 until.
    std::shared_ptr<std::atomic<int>> completed;
  };

  struct Bucket {
    std::vector<size_t> parameters;
    int64_t numel = 0;
    at::Tensor flat;
    size_t pending = 0;
    PendingOp op;
    BucketMarks marks;
  };

  // Buckets for `groups` (bucket_assignment.h's result), fresh flat tensors.
  void buildBuckets(const std::vector<std::vector<size_t>>& groups);
  at::Tensor onGradient(size_t parameter, const at::Tensor& grad);
  void launchReadyBuckets();
  void rebuildInArrivalOrder();

  std::vector<at::Tensor> parameters_;
  ProcessGroup& group_;
  double bucketCapMB_;
  // Shared with completion callbacks, which a failed run can leave running
  // after the bucketer is gone.
  std::shared_ptr<StepClock> clock_;
  bool ownClock_ = false;  // the caller gave none: this bucketer starts steps
  std::vector<int64_t> bytes_;
  std::vector<Bucket> buckets_;
  std::vector<size_t> bucketOf_;
  std::vector<int64_t> offsetOf_;  // into its bucket's flat tensor
  std::vector<bool> seen_;
  std::vector<unsigned> hookHandles_;
  size_t nextToLaunch_ = 0;
  bool rebuilt_ = false;
  StepClock::Mark backwardStart_ = -1;
  std::vector<Event> events_;
  std::vector<size_t> arrival_;  // parameters, in the order gradients came
  // The first backward's buckets, kept past the rebuild by finishBackward().
  std::vector<BucketMarks> firstStepMarks_;
};

}  // namespace distbench::worker
