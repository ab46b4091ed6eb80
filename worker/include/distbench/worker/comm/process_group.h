// The one place the worker calls c10d's collectives (with c10d_version.h,
// c10d_backends.h and store_connection.h, the c10d adapter): a group of
// ranks on Gloo (CPU tensors, or CUDA tensors that Gloo stages through host
// memory) or NCCL (CUDA tensors, one GPU per rank). Everything else in the
// worker talks to this class, whose waits always carry a timeout and whose
// errors always name the peer rank.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/util/intrusive_ptr.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <torch/csrc/distributed/c10d/Work.hpp>
#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "distbench/worker/comm/c10d_backends.h"
#include "distbench/worker/gpu/compute_device.h"

namespace c10d {
class Store;
}  // namespace c10d

namespace distbench::worker {

// Names a rank of this group for messages, e.g. "ps1 (rank 2)"; -1 names the
// group itself, for collectives and receives from any rank.
using PeerNamer = std::function<std::string(int groupRank)>;

struct GroupOptions {
  api::Backend backend = api::Backend::Gloo;
  // Where the group's tensors live: the CPU, or this rank's GPU. Every
  // tensor passed to the group must be there.
  ComputeDevice device = ComputeDevice::cpu();
  std::string hostname;  // Gloo: the address its transport binds to
  std::chrono::milliseconds timeout{60000};
};

class PendingOp {
 public:
  // How the op finishes on this rank, which decides what waiting means.
  enum class Completion {
    Host,        // Gloo on CPU tensors: done when the work is
    StagedCuda,  // Gloo on CUDA tensors: its host part, then copies on streams
    Nccl,        // kernels on NCCL's stream
  };

  PendingOp() = default;
  // `namer` is copied: an op may fail after its group is gone (a thread a
  // failed role left behind).
  PendingOp(c10::intrusive_ptr<c10d::Work> work, std::string what, int peer, PeerNamer namer,
            std::chrono::milliseconds timeout, Completion completion = Completion::Host,
            int device = -1);
  PendingOp(PendingOp&&) noexcept;
  PendingOp& operator=(PendingOp&&) noexcept;
  ~PendingOp();

  // Blocks until the op is complete on this rank, its results in place on
  // the device too, or the group's timeout; throws PeerError naming the
  // peer. Waiting again after success returns at once.
  void wait();
  // Orders what the calling thread queues next on its current stream after
  // the op, without blocking the CPU where the backend need not (NCCL: the
  // stream waits, as DDP's Reducer does); Gloo blocks until its part is
  // done. On CPU tensors the same as wait().
  void enqueueWait();
  // For receives from any source: the sender's group rank (after wait()).
  int sourceRank() const;
  // Runs `callback` on a communication thread when the op completes; on a
  // GPU, with that thread's current stream waiting for the op (c10d's
  // future), so a CUDA event recorded there marks the op's end.
  void onCompletion(std::function<void()> callback);
  bool valid() const { return static_cast<bool>(work_); }
  const c10::intrusive_ptr<c10d::Work>& work() const { return work_; }
  // Runs after the op's wait: a staged receive's copy into the device
  // tensor (Gloo has no send/recv on CUDA tensors).
  void thenOnHost(std::function<void()> step) { then_ = std::move(step); }

 private:
  [[noreturn]] void fail(const std::exception& e) const;
  void finishWait(bool blockForDevice);

  c10::intrusive_ptr<c10d::Work> work_;
  std::string what_;
  int peer_ = -1;  // -1: any or all peers
  int source_ = -1;
  PeerNamer namer_;
  std::chrono::milliseconds timeout_{0};
  Completion completion_ = Completion::Host;
  int device_ = -1;
  std::function<void()> then_;
};

class ProcessGroup {
 public:
  // Joins a group of `size` ranks through `store` (use a PrefixStore to keep
  // groups apart). Throws std::invalid_argument for a combination the
  // backends cannot run (NCCL on the CPU), PeerError naming the group when a
  // Gloo group is not formed within options.timeout (group_formation.h),
  // and what c10d throws.
  ProcessGroup(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
               GroupOptions options, PeerNamer namer);
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  std::chrono::milliseconds timeout() const { return options_.timeout; }
  std::string peerName(int groupRank) const { return namer_(groupRank); }
  api::Backend backend() const { return options_.backend; }
  const ComputeDevice& device() const { return options_.device; }
  // "gloo", "nccl", "gloo on CUDA tensors (staged through host memory)".
  std::string describeBackend() const;

  // Tensors must be contiguous, on device(), and stay alive until the op is
  // waited on.
  PendingOp send(at::Tensor tensor, int dstRank, int tag);
  PendingOp recv(at::Tensor tensor, int srcRank, int tag);
  // Gloo only (NCCL has no receive from any source).
  PendingOp recvAnySource(at::Tensor tensor, int tag);
  // Sends `sendTensor` to `dstRank` while receiving `recvTensor` from
  // `srcRank`; wait for every op returned. Safe when two ranks exchange with
  // each other: NCCL fuses the pair into one op, Gloo posts the receive
  // first.
  std::vector<PendingOp> exchange(at::Tensor sendTensor, int dstRank, at::Tensor recvTensor,
                                  int srcRank, int tag);
  PendingOp allreduceSum(at::Tensor tensor);
  PendingOp broadcast(at::Tensor tensor, int rootRank);
  // In place; only the root's tensor holds the sum afterwards (the backend
  // may use the others as scratch).
  PendingOp reduceSum(at::Tensor tensor, int rootRank);
  // `output`: n chunks, one per rank, each shaped like `input` (NCCL fills
  // it in place, as all_gather_into_tensor; Gloo through chunk views).
  PendingOp allgather(at::Tensor input, at::Tensor output);
  // `outputs` as for allgather on the root, empty on every other rank.
  PendingOp gather(at::Tensor input, std::vector<at::Tensor> outputs, int rootRank);
  // `inputs`: one tensor per rank, shaped like `output`, on the root; empty
  // on every other rank.
  PendingOp scatter(std::vector<at::Tensor> inputs, at::Tensor output, int rootRank);
  // Equal split: chunk j of `input` goes to rank j, whose chunk i of `output`
  // comes from rank i.
  PendingOp alltoall(at::Tensor input, at::Tensor output);
  // `input`: n chunks, one per rank, each shaped like `output` (as
  // reduce_scatter_tensor). Only where hasNativeReduceScatter(): c10d's Gloo
  // refuses it (1.13 and 2.x alike; a test holds that against the library).
  PendingOp reduceScatterSum(at::Tensor input, at::Tensor output);
  // Every rank has arrived, within the timeout. On NCCL an allreduce of one
  // element on this rank's GPU: c10d's own NCCL barrier guesses the GPU
  // from the rank and blocks without a timeout.
  void barrier();

  bool hasNativeReduceScatter() const { return options_.backend == api::Backend::NCCL; }

 private:
  PendingOp op(c10::intrusive_ptr<c10d::Work> work, const char* what, int peer);
  void checkDevice(const at::Tensor& t, const char* what) const;

  int rank_;
  int size_;
  GroupOptions options_;
  PeerNamer namer_;
  BackendHandle backend_;
  PendingOp::Completion completion_ = PendingOp::Completion::Host;
  at::Tensor barrierTensor_;  // NCCL's barrier, on the GPU
};

}  // namespace distbench::worker
