#include "comm/process_group.h"

#ifndef USE_C10D_GLOO
#define USE_C10D_GLOO  // Debian's header is empty without it
#endif
#include <torch/version.h>

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <vector>

#include "comm/peer_error.h"

namespace distbench::worker {

PendingOp::PendingOp(c10::intrusive_ptr<c10d::Work> work, std::string what, int peer,
                     const PeerNamer* namer, std::chrono::milliseconds timeout)
    : work_(std::move(work)),
      what_(std::move(what)),
      peer_(peer),
      namer_(namer),
      timeout_(timeout) {}
PendingOp::PendingOp(PendingOp&&) noexcept = default;
PendingOp& PendingOp::operator=(PendingOp&&) noexcept = default;
PendingOp::~PendingOp() = default;

void PendingOp::wait() {
  if (!work_) return;
  try {
    if (!work_->wait(timeout_)) {
      throw std::runtime_error("not completed");
    }
    // Gloo counts completions: a second wait on the same send or receive
    // would block for the next one. Once done, a PendingOp is empty.
    if (what_ == "receive") source_ = peer_ >= 0 ? peer_ : work_->sourceRank();
    work_.reset();
  } catch (const std::exception& e) {
    // The namer turns -1 into the group as a whole ("the trainer group").
    std::string who = namer_ ? (*namer_)(peer_) : "rank " + std::to_string(peer_);
    std::string msg = e.what();
    // c10d appends a C++ backtrace to its messages; the first line says it all.
    msg = msg.substr(0, msg.find('\n'));
    throw PeerError(what_ + " with " + who + " failed after at most " +
                    std::to_string(timeout_.count() / 1000) + " s: " + msg);
  }
}

int PendingOp::sourceRank() const { return source_; }

void PendingOp::onCompletion(std::function<void()> callback) {
  work_->getFuture()->addCallback(
      [callback = std::move(callback)](c10::ivalue::Future&) { callback(); });
}

ProcessGroup::ProcessGroup(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                           const std::string& hostname, std::chrono::milliseconds timeout,
                           PeerNamer namer)
    : rank_(rank), size_(size), timeout_(timeout), namer_(std::move(namer)) {
  auto options = c10d::ProcessGroupGloo::Options::create(timeout);
  options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(hostname));
  // Two worker threads let a bucket's allreduce run while the next is queued.
  options->threads = 2;
  gloo_ = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, size, options);
}

ProcessGroup::~ProcessGroup() = default;

PendingOp ProcessGroup::send(at::Tensor tensor, int dstRank, int tag) {
  std::vector<at::Tensor> tensors{std::move(tensor)};
  return PendingOp(gloo_->send(tensors, dstRank, tag), "send", dstRank, &namer_, timeout_);
}

PendingOp ProcessGroup::recv(at::Tensor tensor, int srcRank, int tag) {
  std::vector<at::Tensor> tensors{std::move(tensor)};
  return PendingOp(gloo_->recv(tensors, srcRank, tag), "receive", srcRank, &namer_, timeout_);
}

PendingOp ProcessGroup::recvAnySource(at::Tensor tensor, int tag) {
  std::vector<at::Tensor> tensors{std::move(tensor)};
  return PendingOp(gloo_->recvAnysource(tensors, tag), "receive", -1, &namer_, timeout_);
}

PendingOp ProcessGroup::allreduceSum(at::Tensor tensor) {
  std::vector<at::Tensor> tensors{std::move(tensor)};
  return PendingOp(gloo_->allreduce(tensors), "allreduce", -1, &namer_, timeout_);
}

PendingOp ProcessGroup::broadcast(at::Tensor tensor, int rootRank) {
  std::vector<at::Tensor> tensors{std::move(tensor)};
  c10d::BroadcastOptions opts;
  opts.rootRank = rootRank;
  return PendingOp(gloo_->broadcast(tensors, opts), "broadcast", rootRank, &namer_, timeout_);
}

PendingOp ProcessGroup::reduceSum(at::Tensor tensor, int rootRank) {
  std::vector<at::Tensor> tensors{std::move(tensor)};
  c10d::ReduceOptions opts;
  opts.rootRank = rootRank;
  return PendingOp(gloo_->reduce(tensors, opts), "reduce", rootRank, &namer_, timeout_);
}

PendingOp ProcessGroup::allgather(at::Tensor input, std::vector<at::Tensor> outputs) {
  std::vector<at::Tensor> inputs{std::move(input)};
  std::vector<std::vector<at::Tensor>> outputLists{std::move(outputs)};
  return PendingOp(gloo_->allgather(outputLists, inputs), "allgather", -1, &namer_, timeout_);
}

PendingOp ProcessGroup::gather(at::Tensor input, std::vector<at::Tensor> outputs, int rootRank) {
  std::vector<at::Tensor> inputs{std::move(input)};
  // Gloo wants a list holding the list of outputs on the root, and no list
  // at all elsewhere.
  std::vector<std::vector<at::Tensor>> outputLists;
  if (rank_ == rootRank) outputLists.push_back(std::move(outputs));
  c10d::GatherOptions opts;
  opts.rootRank = rootRank;
  return PendingOp(gloo_->gather(outputLists, inputs, opts), "gather", rootRank, &namer_, timeout_);
}

PendingOp ProcessGroup::scatter(std::vector<at::Tensor> inputs, at::Tensor output, int rootRank) {
  std::vector<at::Tensor> outputs{std::move(output)};
  std::vector<std::vector<at::Tensor>> inputLists;
  if (rank_ == rootRank) inputLists.push_back(std::move(inputs));
  c10d::ScatterOptions opts;
  opts.rootRank = rootRank;
  return PendingOp(gloo_->scatter(outputs, inputLists, opts), "scatter", rootRank, &namer_,
                   timeout_);
}

PendingOp ProcessGroup::alltoall(at::Tensor input, at::Tensor output) {
  std::vector<int64_t> equalSplit;  // empty: size / n each way
  return PendingOp(gloo_->alltoall_base(output, input, equalSplit, equalSplit), "alltoall", -1,
                   &namer_, timeout_);
}

PendingOp ProcessGroup::reduceScatterSum(std::vector<at::Tensor> inputs, at::Tensor output) {
  std::vector<at::Tensor> outputs{std::move(output)};
  std::vector<std::vector<at::Tensor>> inputLists{std::move(inputs)};
  return PendingOp(gloo_->reduce_scatter(outputs, inputLists), "reduce-scatter", -1, &namer_,
                   timeout_);
}

void ProcessGroup::barrier() {
  PendingOp(gloo_->barrier(), "barrier", -1, &namer_, timeout_).wait();
}

}  // namespace distbench::worker
