#include "comm/ddp_bucketer.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <torch/csrc/autograd/variable.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "comm/bucket_assignment.h"

namespace distbench::worker {

GradientBucketer::GradientBucketer(std::vector<at::Tensor> parameters, ProcessGroup& group,
                                   double bucketCapMB, AllreduceObserver observer)
    : parameters_(std::move(parameters)), group_(group), observer_(std::move(observer)) {
  const size_t n = parameters_.size();
  bucketOf_.assign(n, 0);
  slotOf_.assign(n, 0);
  seen_.assign(n, false);

  std::vector<int64_t> bytes(n);
  // Last first, as gradients arrive: an error names the first to arrive.
  for (size_t k = n; k-- > 0;) {
    const auto& p = parameters_[k];
    if (p.scalar_type() != at::kFloat || !p.is_contiguous()) {
      throw std::invalid_argument("DDP bucketer: parameter " + std::to_string(k) +
                                  " is not a contiguous float tensor");
    }
    bytes[k] = p.numel() * static_cast<int64_t>(p.element_size());
  }
  const std::vector<std::vector<size_t>> groups = computeBucketAssignment(bytes, bucketCapMB);
  buckets_.resize(groups.size());
  for (size_t b = 0; b < groups.size(); ++b) {
    Bucket& bucket = buckets_[b];
    int64_t numel = 0;
    for (size_t slot = 0; slot < groups[b].size(); ++slot) {
      size_t k = groups[b][slot];
      bucket.parameters.push_back(k);
      bucket.offsets.push_back(numel);
      bucketOf_[k] = b;
      slotOf_[k] = slot;
      numel += parameters_[k].numel();
    }
    bucket.flat = at::zeros({numel}, at::kFloat);
  }

  for (size_t k = 0; k < n; ++k) {
    hookHandles_.push_back(
        parameters_[k].register_hook([this, k](const at::Tensor& grad) { onGradient(k, grad); }));
  }
}

GradientBucketer::~GradientBucketer() {
  for (size_t k = 0; k < hookHandles_.size(); ++k) {
    parameters_[k].remove_hook(hookHandles_[k]);
  }
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
  }
  for (auto& p : parameters_) p.mutable_grad().reset();
  std::fill(seen_.begin(), seen_.end(), false);
  nextToLaunch_ = 0;
  std::lock_guard<std::mutex> lock(eventsMutex_);
  events_.clear();
}

void GradientBucketer::onGradient(size_t k, const at::Tensor& grad) {
  if (seen_[k]) {
    throw std::runtime_error("DDP bucketer: parameter " + std::to_string(k) +
                             " received two gradients in one backward pass");
  }
  seen_[k] = true;
  {
    std::lock_guard<std::mutex> lock(eventsMutex_);
    events_.push_back({Event::Kind::GradientReady, static_cast<int>(k)});
  }
  Bucket& bucket = buckets_[bucketOf_[k]];
  at::Tensor slice = bucket.flat.narrow(0, bucket.offsets[slotOf_[k]], grad.numel());
  // Pre-divide, as torch's Reducer does, so the sum is already the average.
  at::mul_out(slice, grad.reshape({-1}), 1.0 / group_.size());
  if (--bucket.pending == 0) launchReadyBuckets();
}

void GradientBucketer::launchReadyBuckets() {
  while (nextToLaunch_ < buckets_.size() && buckets_[nextToLaunch_].pending == 0) {
    const size_t b = nextToLaunch_++;
    Bucket& bucket = buckets_[b];
    {
      std::lock_guard<std::mutex> lock(eventsMutex_);
      events_.push_back({Event::Kind::AllreduceLaunched, static_cast<int>(b)});
    }
    bucket.launchedAt = std::chrono::steady_clock::now();
    bucket.op = group_.allreduceSum(bucket.flat);
    if (observer_) {
      auto start = bucket.launchedAt;
      int64_t bytes = bucket.flat.numel() * static_cast<int64_t>(sizeof(float));
      auto observer = observer_;
      bucket.op.onCompletion([start, bytes, observer] {
        std::chrono::duration<double> d = std::chrono::steady_clock::now() - start;
        observer(d.count(), bytes);
      });
    }
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
  for (auto& bucket : buckets_) bucket.op.wait();
  for (auto& bucket : buckets_) {
    for (size_t slot = 0; slot < bucket.parameters.size(); ++slot) {
      at::Tensor& p = parameters_[bucket.parameters[slot]];
      p.mutable_grad() = bucket.flat.narrow(0, bucket.offsets[slot], p.numel()).view(p.sizes());
    }
  }
}

std::vector<std::vector<size_t>> GradientBucketer::bucketParameterIndices() const {
  std::vector<std::vector<size_t>> out;
  for (const auto& b : buckets_) out.push_back(b.parameters);
  return out;
}

std::vector<GradientBucketer::Event> GradientBucketer::lastStepEvents() const {
  std::lock_guard<std::mutex> lock(eventsMutex_);
  return events_;
}

}  // namespace distbench::worker
