#include "distbench/worker/comm/ddp_bucketer.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <torch/csrc/autograd/variable.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "distbench/worker/comm/bucket_assignment.h"

namespace distbench::worker {

GradientBucketer::GradientBucketer(std::vector<at::Tensor> parameters, ProcessGroup& group,
                                   double bucketCapMB, std::shared_ptr<StepClock> clock)
    : parameters_(std::move(parameters)),
      group_(group),
      bucketCapMB_(bucketCapMB),
      clock_(std::move(clock)) {
  if (!clock_) {
    clock_ = makeCpuClock();
    ownClock_ = true;
  }
  const size_t n = parameters_.size();
  bucketOf_.assign(n, 0);
  offsetOf_.assign(n, 0);
  seen_.assign(n, false);
  events_.reserve(2 * n);
  arrival_.reserve(n);

  bytes_.resize(n);
  // Last first, as gradients arrive: an error names the first to arrive.
  for (size_t k = n; k-- > 0;) {
    const auto& p = parameters_[k];
    if (p.scalar_type() != at::kFloat || !p.is_contiguous()) {
      throw std::invalid_argument("DDP bucketer: parameter " + std::to_string(k) +
                                  " is not a contiguous float tensor");
    }
    if (p.device() != group_.device().torchDevice()) {
      throw std::invalid_argument("DDP bucketer: parameter " + std::to_string(k) + " is on " +
                                  p.device().str() + ", the group on " + group_.device().name());
    }
    bytes_[k] = p.numel() * static_cast<int64_t>(p.element_size());
  }
  buildBuckets(computeBucketAssignment(bytes_, bucketCapMB_));

  for (size_t k = 0; k < n; ++k) {
    hookHandles_.push_back(parameters_[k].register_hook(
        [this, k](const at::Tensor& grad) { return onGradient(k, grad); }));
  }
}

GradientBucketer::~GradientBucketer() {
  for (size_t k = 0; k < hookHandles_.size(); ++k) {
    parameters_[k].remove_hook(hookHandles_[k]);
  }
}

void GradientBucketer::buildBuckets(const std::vector<std::vector<size_t>>& groups) {
  std::vector<Bucket> buckets(groups.size());
  for (size_t b = 0; b < groups.size(); ++b) {
    Bucket& bucket = buckets[b];
    bucket.parameters = groups[b];
    for (size_t k : groups[b]) {
      bucketOf_[k] = b;
      offsetOf_[k] = bucket.numel;
      bucket.numel += parameters_[k].numel();
    }
    // Every element is written (by its gradient's hook) before the bucket's
    // allreduce reads it.
    bucket.flat = at::empty({bucket.numel},
                            at::TensorOptions(at::kFloat).device(group_.device().torchDevice()));
    bucket.marks.parameters = bucket.parameters.size();
    bucket.marks.bytes = bucket.numel * static_cast<int64_t>(sizeof(float));
    bucket.marks.completed = std::make_shared<std::atomic<int>>(-1);
  }
  buckets_ = std::move(buckets);
}

void GradientBucketer::broadcastParameters(int rootRank) {
  c10::AutoGradMode noGrad(false);
  std::vector<PendingOp> ops;
  for (auto& p : parameters_) ops.push_back(group_.broadcast(p.detach(), rootRank));
  for (auto& op : ops) op.wait();
}

void GradientBucketer::prepareForBackward() {
  for (auto& bucket : buckets_) {
    bucket.pending = bucket.parameters.size();
    bucket.marks.firstGradient = bucket.marks.launched = -1;
    bucket.marks.completed->store(-1, std::memory_order_relaxed);
  }
  std::fill(seen_.begin(), seen_.end(), false);
  nextToLaunch_ = 0;
  events_.clear();
  arrival_.clear();
  firstStepMarks_.clear();
  if (ownClock_) clock_->beginStep();
  backwardStart_ = clock_->mark();
}

// Runs on the autograd thread, before the parameter's AccumulateGrad. The
// gradient goes into the bucket, pre-divided by the world size as torch's
// Reducer does (so the sum is already the average). The returned view of
// the bucket replaces it: with .grad reset, AccumulateGrad takes the view
// as .grad without a copy (no one else holds it), and autograd's own tensor
// is freed here, while backward still runs, so the allocator hands its
// memory to the next gradient instead of holding a model's worth of
// gradients until the step ends.
at::Tensor GradientBucketer::onGradient(size_t k, const at::Tensor& grad) {
  if (seen_[k]) {
    throw std::runtime_error("DDP bucketer: parameter " + std::to_string(k) +
                             " received two gradients in one backward pass");
  }
  seen_[k] = true;
  events_.push_back({Event::Kind::GradientReady, static_cast<int>(k)});
  arrival_.push_back(k);
  Bucket& bucket = buckets_[bucketOf_[k]];
  if (bucket.pending == bucket.parameters.size()) bucket.marks.firstGradient = clock_->mark();
  at::Tensor& param = parameters_[k];
  at::Tensor view = bucket.flat.as_strided(param.sizes(), param.strides(), offsetOf_[k]);
  if (group_.size() == 1) {
    view.copy_(grad);  // x * 1.0 == x: the same values, without the multiply
  } else {
    at::mul_out(view, grad, 1.0 / group_.size());
  }
  param.mutable_grad().reset();
  if (--bucket.pending == 0) launchReadyBuckets();
  return view;
}

void GradientBucketer::launchReadyBuckets() {
  while (nextToLaunch_ < buckets_.size() && buckets_[nextToLaunch_].pending == 0) {
    const size_t b = nextToLaunch_++;
    Bucket& bucket = buckets_[b];
    events_.push_back({Event::Kind::AllreduceLaunched, static_cast<int>(b)});
    bucket.marks.launched = clock_->mark();
    bucket.op = group_.allreduceSum(bucket.flat);
    // Shared pointers, not this: a failed run can destroy the bucketer while
    // an allreduce is still in flight. On a GPU the callback's current
    // stream waits for the allreduce, so its mark is the allreduce's end.
    bucket.op.onCompletion([clock = clock_, done = bucket.marks.completed] {
      done->store(clock->mark(), std::memory_order_release);
    });
  }
}

void GradientBucketer::finishBackward() {
  if (nextToLaunch_ < buckets_.size()) {
    std::string missing;
    for (size_t k = 0; k < parameters_.size(); ++k) {
      if (!seen_[k]) missing += (missing.empty() ? "" : ", ") + std::to_string(k);
    }
    throw std::runtime_error("DDP bucketer: no gradient for parameter(s) " + missing +
                             " in this backward pass; every parameter must take part");
  }
  // Completion callbacks run before a wait returns (c10d completes the
  // future, then the work; NCCL's future completes at launch, its callbacks
  // on streams that wait for the work).
  for (auto& bucket : buckets_) bucket.op.enqueueWait();
  // AccumulateGrad has taken each hook's view as .grad. Should it ever copy
  // instead (a LibTorch that clones where 1.13 steals), the copy was made
  // before the allreduce: install the view, so .grad is the average anyway.
  for (const auto& bucket : buckets_) {
    // Addresses only: on a GPU nothing is read from the device here.
    const float* base = static_cast<const float*>(bucket.flat.data_ptr());
    for (size_t k : bucket.parameters) {
      at::Tensor& p = parameters_[k];
      if (!p.grad().defined() || p.grad().data_ptr() != base + offsetOf_[k]) {
        p.mutable_grad() = bucket.flat.as_strided(p.sizes(), p.strides(), offsetOf_[k]);
      }
    }
  }
  if (!rebuilt_) {
    rebuilt_ = true;
    for (const auto& bucket : buckets_) firstStepMarks_.push_back(bucket.marks);
    rebuildInArrivalOrder();
  }
}

// Autograd's order is a property of the graph, so replicas of one model see
// the same order, but nothing guarantees it (a rank-dependent forward, or
// threads); buckets that differ between ranks would pair allreduces of
// different tensors. So every rank builds rank 0's order.
void GradientBucketer::rebuildInArrivalOrder() {
  std::vector<size_t> order = arrival_;
  if (group_.size() > 1) {
    at::Tensor wire = at::empty({static_cast<int64_t>(order.size())}, at::kLong);
    int64_t* data = wire.data_ptr<int64_t>();
    for (size_t i = 0; i < order.size(); ++i) data[i] = static_cast<int64_t>(order[i]);
    if (group_.device().isCuda()) {
      at::Tensor onDevice = wire.to(group_.device().torchDevice());
      group_.broadcast(onDevice, 0).wait();
      wire = onDevice.to(at::kCPU);
      data = wire.data_ptr<int64_t>();
    } else {
      group_.broadcast(wire, 0).wait();
    }
    for (size_t i = 0; i < order.size(); ++i) {
      if (data[i] < 0) throw std::runtime_error("DDP bucketer: rank 0 sent a bad order");
      order[i] = static_cast<size_t>(data[i]);
    }
  }
  // Fresh storage even when the assignment is unchanged, as the Reducer's
  // rebuild does; it also matters to the allocator. The first buckets'
  // storage, freed once each gradient's next hook drops the view that .grad
  // still holds, is the largest block the process frees; glibc then raises
  // its mmap threshold to that block's size (up to 32 MiB) and its trim
  // threshold to twice that, so the heap stops being trimmed at the end of
  // an iteration and faulted in again during the next (ResNet-18 at 25 MB,
  // one rank: 11,000 page faults an iteration without, none with; see
  // docs/performance.md).
  buildBuckets(computeBucketAssignment(bytes_, bucketCapMB_, order));
}

std::vector<std::vector<size_t>> GradientBucketer::bucketParameterIndices() const {
  std::vector<std::vector<size_t>> out;
  for (const auto& b : buckets_) out.push_back(b.parameters);
  return out;
}

std::vector<GradientBucketer::Event> GradientBucketer::lastStepEvents() const { return events_; }

std::vector<BucketTiming> GradientBucketer::lastStepTimeline() const {
  std::vector<BucketMarks> marks = firstStepMarks_;
  if (marks.empty()) {
    for (const auto& bucket : buckets_) marks.push_back(bucket.marks);
  }
  auto since = [this](StepClock::Mark m) {
    return m < 0 ? std::numeric_limits<double>::quiet_NaN() : clock_->seconds(backwardStart_, m);
  };
  std::vector<BucketTiming> out;
  for (const auto& m : marks) {
    BucketTiming t;
    t.parameters = m.parameters;
    t.bytes = m.bytes;
    t.firstGradient = since(m.firstGradient);
    t.launched = since(m.launched);
    t.completed = since(m.completed->load(std::memory_order_acquire));
    out.push_back(t);
  }
  return out;
}

}  // namespace distbench::worker
