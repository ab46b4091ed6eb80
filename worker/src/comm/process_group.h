// The one place that knows c10d's API. LibTorch 1.13 (Debian) has
// ProcessGroupGloo derive from ProcessGroup; 2.x splits ProcessGroup from
// Backend. Everything else in the worker talks to this adapter, whose waits
// always carry a timeout and whose errors always name the peer rank.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/util/intrusive_ptr.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <torch/csrc/distributed/c10d/Work.hpp>
#include <vector>

namespace c10d {
class Store;
class ProcessGroupGloo;
}  // namespace c10d

namespace distbench::worker {

// Names a rank of this group for messages, e.g. "ps1 (rank 2)"; -1 names the
// group itself, for collectives and receives from any rank.
using PeerNamer = std::function<std::string(int groupRank)>;

class PendingOp {
 public:
  PendingOp() = default;
  PendingOp(c10::intrusive_ptr<c10d::Work> work, std::string what, int peer, const PeerNamer* namer,
            std::chrono::milliseconds timeout);
  PendingOp(PendingOp&&) noexcept;
  PendingOp& operator=(PendingOp&&) noexcept;
  ~PendingOp();

  // Blocks until done or the group's timeout; throws PeerError naming the
  // peer. Waiting again after success returns at once.
  void wait();
  // For receives from any source: the sender's group rank (after wait()).
  int sourceRank() const;
  // Runs `callback` on a communication thread when a collective completes.
  void onCompletion(std::function<void()> callback);
  bool valid() const { return static_cast<bool>(work_); }
  const c10::intrusive_ptr<c10d::Work>& work() const { return work_; }

 private:
  c10::intrusive_ptr<c10d::Work> work_;
  std::string what_;
  int peer_ = -1;  // -1: any or all peers
  int source_ = -1;
  const PeerNamer* namer_ = nullptr;
  std::chrono::milliseconds timeout_{0};
};

class ProcessGroup {
 public:
  // Joins a Gloo group of `size` ranks through `store` (use a PrefixStore to
  // keep groups apart). Binds to `hostname`'s address.
  ProcessGroup(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
               const std::string& hostname, std::chrono::milliseconds timeout, PeerNamer namer);
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  std::chrono::milliseconds timeout() const { return timeout_; }
  std::string peerName(int groupRank) const { return namer_(groupRank); }

  // Tensors must be contiguous and stay alive until the op is waited on.
  PendingOp send(at::Tensor tensor, int dstRank, int tag);
  PendingOp recv(at::Tensor tensor, int srcRank, int tag);
  PendingOp recvAnySource(at::Tensor tensor, int tag);
  PendingOp allreduceSum(at::Tensor tensor);
  PendingOp broadcast(at::Tensor tensor, int rootRank);
  // In place; only the root's tensor holds the sum afterwards (Gloo may use
  // the others as scratch).
  PendingOp reduceSum(at::Tensor tensor, int rootRank);
  // `outputs`: one tensor per rank, each shaped like `input`.
  PendingOp allgather(at::Tensor input, std::vector<at::Tensor> outputs);
  // `outputs` as for allgather on the root, empty on every other rank.
  PendingOp gather(at::Tensor input, std::vector<at::Tensor> outputs, int rootRank);
  // `inputs`: one tensor per rank, shaped like `output`, on the root; empty
  // on every other rank.
  PendingOp scatter(std::vector<at::Tensor> inputs, at::Tensor output, int rootRank);
  // Equal split: chunk j of `input` goes to rank j, whose chunk i of `output`
  // comes from rank i.
  PendingOp alltoall(at::Tensor input, at::Tensor output);
  // `inputs`: one tensor per rank, shaped like `output`. LibTorch 1.13's Gloo
  // has no reduce_scatter: there this throws at once (kHasReduceScatter).
  PendingOp reduceScatterSum(std::vector<at::Tensor> inputs, at::Tensor output);
  void barrier();

  // Whether reduceScatterSum runs on this LibTorch's Gloo. A test holds this
  // against the library, so a LibTorch upgrade that adds it fails loudly.
  static constexpr bool kHasReduceScatter = false;

 private:
  int rank_;
  int size_;
  std::chrono::milliseconds timeout_;
  PeerNamer namer_;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> gloo_;
};

}  // namespace distbench::worker
