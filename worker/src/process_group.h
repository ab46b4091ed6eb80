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
  void barrier();

 private:
  int rank_;
  int size_;
  std::chrono::milliseconds timeout_;
  PeerNamer namer_;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> gloo_;
};

}  // namespace distbench::worker
