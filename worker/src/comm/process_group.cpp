#include "distbench/worker/comm/process_group.h"

#ifndef USE_C10D_GLOO
#define USE_C10D_GLOO  // Debian's header is empty without it
#endif
#include <ATen/ATen.h>

#include <stdexcept>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <vector>

#include "distbench/worker/comm/group_formation.h"
#include "distbench/worker/comm/peer_error.h"
#include "distbench/worker/gpu/torch_cuda.h"

namespace distbench::worker {

PendingOp::PendingOp(c10::intrusive_ptr<c10d::Work> work, std::string what, int peer,
                     PeerNamer namer, std::chrono::milliseconds timeout, Completion completion,
                     int device)
    : work_(std::move(work)),
      what_(std::move(what)),
      peer_(peer),
      namer_(std::move(namer)),
      timeout_(timeout),
      completion_(completion),
      device_(device) {}
PendingOp::PendingOp(PendingOp&&) noexcept = default;
PendingOp& PendingOp::operator=(PendingOp&&) noexcept = default;
PendingOp::~PendingOp() = default;

void PendingOp::fail(const std::exception& e) const {
  // The namer turns -1 into the group as a whole ("the trainer group").
  std::string who = namer_ ? namer_(peer_) : "rank " + std::to_string(peer_);
  std::string msg = e.what();
  // c10d appends a C++ backtrace to its messages; the first line says it all.
  msg = msg.substr(0, msg.find('\n'));
  throw PeerError(what_ + " with " + who + " failed after at most " +
                  std::to_string(timeout_.count() / 1000) + " s: " + msg);
}

void PendingOp::finishWait(bool blockForDevice) {
  if (!work_) return;
  try {
    if (completion_ == Completion::Nccl) {
      // Without a timeout, NCCL's wait only makes the current stream wait
      // (with one, it polls every millisecond, which small ops would feel);
      // the block and its timeout come below.
      work_->wait();
    } else if (!work_->wait(timeout_)) {
      throw std::runtime_error("not completed");
    }
    if (then_) then_();
    if (blockForDevice && completion_ != Completion::Host) {
      synchronizeCurrentStream(device_, timeout_, "the GPU to finish the " + what_);
    }
    // Gloo counts completions: a second wait on the same send or receive
    // would block for the next one. Once done, a PendingOp is empty.
    if (what_ == "receive") source_ = peer_ >= 0 ? peer_ : work_->sourceRank();
    work_.reset();
    then_ = nullptr;
  } catch (const std::exception& e) {
    fail(e);
  }
}

void PendingOp::wait() { finishWait(/*blockForDevice=*/true); }

void PendingOp::enqueueWait() { finishWait(/*blockForDevice=*/false); }

int PendingOp::sourceRank() const { return source_; }

void PendingOp::onCompletion(std::function<void()> callback) {
  work_->getFuture()->addCallback(
      [callback = std::move(callback)](c10::ivalue::Future&) { callback(); });
}

ProcessGroup::ProcessGroup(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                           GroupOptions options, PeerNamer namer)
    : rank_(rank), size_(size), options_(std::move(options)), namer_(std::move(namer)) {
  // In a group of two a failed group operation has one suspect: name it, so
  // that the verdict this rank may publish says who went, not "the group".
  if (size_ == 2 && namer_) {
    namer_ = [inner = std::move(namer_), other = 1 - rank_](int r) {
      return inner(r < 0 ? other : r);
    };
  }
  const bool cuda = options_.device.isCuda();
  if (options_.backend == api::Backend::NCCL) {
    if (!cuda) throw std::invalid_argument("an NCCL group needs CUDA tensors, not the CPU");
    backend_ = makeNcclBackend(store, rank, size, options_.timeout);
    completion_ = PendingOp::Completion::Nccl;
    barrierTensor_ = at::zeros({1}, at::TensorOptions().device(options_.device.torchDevice()));
  } else {
    // Gloo connects every pair in its constructor, waiting up to five times
    // the timeout for a pair's first connection (group_formation.h).
    const std::string who = namer_ ? namer_(-1) : "the group";
    backend_ = formWithin(
        [store, rank, size, hostname = options_.hostname, timeout = options_.timeout] {
          return makeGlooBackend(store, rank, size, hostname, timeout);
        },
        options_.timeout, "the Gloo group with " + who + " (" + std::to_string(size) + " ranks)");
    completion_ = cuda ? PendingOp::Completion::StagedCuda : PendingOp::Completion::Host;
  }
}

ProcessGroup::~ProcessGroup() {
  if (backend_.close) {
    try {
      backend_.close();
    } catch (const std::exception&) {
      // A group torn down after a failure has nothing left to flush.
    }
  }
}

std::string ProcessGroup::describeBackend() const {
  switch (completion_) {
    case PendingOp::Completion::Host:
      return "gloo";
    case PendingOp::Completion::StagedCuda:
      return "gloo on CUDA tensors (staged through host memory)";
    case PendingOp::Completion::Nccl:
      return "nccl";
  }
  return "";
}

PendingOp ProcessGroup::op(c10::intrusive_ptr<c10d::Work> work, const char* what, int peer) {
  return PendingOp(std::move(work), what, peer, namer_, options_.timeout, completion_,
                   options_.device.index());
}

void ProcessGroup::checkDevice(const at::Tensor& t, const char* what) const {
  if (t.defined() && t.device() != options_.device.torchDevice()) {
    throw std::invalid_argument(std::string(what) + ": a tensor on " + t.device().str() +
                                " in a group on " + options_.device.name());
  }
}

// Gloo's send and receive hand c10d a raw pointer to its TCP transport,
// which must be host memory: a CUDA tensor goes through a host copy, as
// Gloo's collectives on CUDA tensors do internally.
PendingOp ProcessGroup::send(at::Tensor tensor, int dstRank, int tag) {
  checkDevice(tensor, "send");
  if (completion_ == PendingOp::Completion::StagedCuda) tensor = tensor.to(at::kCPU);
  std::vector<at::Tensor> tensors{tensor};
  PendingOp pending = op(backend_.backend->send(tensors, dstRank, tag), "send", dstRank);
  // The host copy lives until the send is done.
  if (completion_ == PendingOp::Completion::StagedCuda) pending.thenOnHost([tensor] {});
  return pending;
}

PendingOp ProcessGroup::recv(at::Tensor tensor, int srcRank, int tag) {
  checkDevice(tensor, "receive");
  at::Tensor target = tensor;
  if (completion_ == PendingOp::Completion::StagedCuda) {
    tensor = at::empty_like(tensor, at::TensorOptions().device(at::kCPU));
  }
  std::vector<at::Tensor> tensors{tensor};
  PendingOp pending = op(backend_.backend->recv(tensors, srcRank, tag), "receive", srcRank);
  if (completion_ == PendingOp::Completion::StagedCuda) {
    pending.thenOnHost([target, tensor]() mutable { target.copy_(tensor, /*non_blocking=*/true); });
  }
  return pending;
}

PendingOp ProcessGroup::recvAnySource(at::Tensor tensor, int tag) {
  if (completion_ != PendingOp::Completion::Host) {
    throw std::logic_error("receive from any source: Gloo on CPU tensors only");
  }
  std::vector<at::Tensor> tensors{std::move(tensor)};
  return op(backend_.backend->recvAnysource(tensors, tag), "receive", -1);
}

std::vector<PendingOp> ProcessGroup::exchange(at::Tensor sendTensor, int dstRank,
                                              at::Tensor recvTensor, int srcRank, int tag) {
  std::vector<PendingOp> ops;
  if (backend_.fusedExchange) {
    checkDevice(sendTensor, "send");
    checkDevice(recvTensor, "receive");
    ops.push_back(op(backend_.fusedExchange(sendTensor, dstRank, recvTensor, srcRank, tag),
                     "send/receive", -1));
    return ops;
  }
  ops.push_back(recv(std::move(recvTensor), srcRank, tag));
  ops.push_back(send(std::move(sendTensor), dstRank, tag));
  return ops;
}

PendingOp ProcessGroup::allreduceSum(at::Tensor tensor) {
  checkDevice(tensor, "allreduce");
  std::vector<at::Tensor> tensors{std::move(tensor)};
  return op(backend_.backend->allreduce(tensors), "allreduce", -1);
}

PendingOp ProcessGroup::broadcast(at::Tensor tensor, int rootRank) {
  checkDevice(tensor, "broadcast");
  std::vector<at::Tensor> tensors{std::move(tensor)};
  c10d::BroadcastOptions opts;
  opts.rootRank = rootRank;
  return op(backend_.backend->broadcast(tensors, opts), "broadcast", rootRank);
}

PendingOp ProcessGroup::reduceSum(at::Tensor tensor, int rootRank) {
  checkDevice(tensor, "reduce");
  std::vector<at::Tensor> tensors{std::move(tensor)};
  c10d::ReduceOptions opts;
  opts.rootRank = rootRank;
  return op(backend_.backend->reduce(tensors, opts), "reduce", rootRank);
}

// NCCL's tensor forms gather and scatter in place, with no copy through a
// staging buffer, as FSDP's all_gather_into_tensor and reduce_scatter_tensor
// do; Gloo has only the list forms.
PendingOp ProcessGroup::allgather(at::Tensor input, at::Tensor output) {
  checkDevice(input, "allgather");
  if (completion_ == PendingOp::Completion::Nccl) {
    return op(backend_.backend->_allgather_base(output, input), "allgather", -1);
  }
  std::vector<at::Tensor> inputs{std::move(input)};
  std::vector<std::vector<at::Tensor>> outputLists{output.chunk(size_)};
  return op(backend_.backend->allgather(outputLists, inputs), "allgather", -1);
}

PendingOp ProcessGroup::gather(at::Tensor input, std::vector<at::Tensor> outputs, int rootRank) {
  checkDevice(input, "gather");
  std::vector<at::Tensor> inputs{std::move(input)};
  // Both backends want a list holding the list of outputs on the root, and
  // no list at all elsewhere.
  std::vector<std::vector<at::Tensor>> outputLists;
  if (rank_ == rootRank) outputLists.push_back(std::move(outputs));
  c10d::GatherOptions opts;
  opts.rootRank = rootRank;
  return op(backend_.backend->gather(outputLists, inputs, opts), "gather", rootRank);
}

PendingOp ProcessGroup::scatter(std::vector<at::Tensor> inputs, at::Tensor output, int rootRank) {
  checkDevice(output, "scatter");
  std::vector<at::Tensor> outputs{std::move(output)};
  std::vector<std::vector<at::Tensor>> inputLists;
  if (rank_ == rootRank) inputLists.push_back(std::move(inputs));
  c10d::ScatterOptions opts;
  opts.rootRank = rootRank;
  return op(backend_.backend->scatter(outputs, inputLists, opts), "scatter", rootRank);
}

PendingOp ProcessGroup::alltoall(at::Tensor input, at::Tensor output) {
  checkDevice(input, "alltoall");
  std::vector<int64_t> equalSplit;  // empty: size / n each way
  return op(backend_.backend->alltoall_base(output, input, equalSplit, equalSplit), "alltoall", -1);
}

PendingOp ProcessGroup::reduceScatterSum(at::Tensor input, at::Tensor output) {
  checkDevice(output, "reduce-scatter");
  if (completion_ == PendingOp::Completion::Nccl) {
    return op(backend_.backend->_reduce_scatter_base(output, input), "reduce-scatter", -1);
  }
  std::vector<at::Tensor> outputs{std::move(output)};
  std::vector<std::vector<at::Tensor>> inputLists{input.chunk(size_)};
  return op(backend_.backend->reduce_scatter(outputs, inputLists), "reduce-scatter", -1);
}

void ProcessGroup::barrier() {
  if (completion_ == PendingOp::Completion::Nccl) {
    std::vector<at::Tensor> tensors{barrierTensor_};
    op(backend_.backend->allreduce(tensors), "barrier", -1).wait();
    return;
  }
  op(backend_.backend->barrier(), "barrier", -1).wait();
}

}  // namespace distbench::worker
