// A trainer's calls to the parameter servers. Each call goes to all P shards
// at once, replies posted first: every reply buffer is waiting before any
// request leaves (a lookup's since the previous step's update), so the P
// lookups are in flight together and each answer lands in one hop.
#pragma once

#include <ATen/core/Tensor.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "distbench/worker/comm/process_group.h"
#include "distbench/worker/hybrid/hybrid_metrics.h"
#include "distbench/worker/hybrid/wire.h"

namespace distbench::worker {

class ParameterServerClient {
 public:
  ParameterServerClient(ProcessGroup& global, int numParameterServers, int trainerIndex,
                        int64_t embeddingDim, MessageSizes sizes, HybridTrainerMetrics& metrics);

  // One [bags, dim] tensor per shard.
  std::vector<at::Tensor> lookup(int64_t step, const at::Tensor& indices,
                                 const at::Tensor& offsets);
  // The backward half of distributed autograd plus the distributed optimizer
  // step: gradients[p] = d(loss)/d(lookup p) goes to shard p, then a step.
  // Both requests leave back to back (a shard serves one trainer in order, so
  // the step sees the gradient). begin returns once they are sent; end waits
  // for every shard, recording each push's delivery and each step's round
  // trip. `anotherStep`: a lookup follows, whose reply receives are posted
  // now, with the step's; false for the last step, so that no receive is
  // left waiting when the trainer is done.
  void beginUpdate(int64_t step, const std::vector<at::Tensor>& gradients, bool anotherStep);
  void endUpdate();
  // Tells every shard this trainer is finished.
  void done();

  // Bytes this client has put on the wire to all parameter servers, and
  // taken off it, so far: whole message buffers (every request and reply
  // has the one size of MessageSizes, whatever its payload), which is what
  // Gloo sends. The metrics' observeRpc counts header and payload instead.
  int64_t bytesSent() const { return bytesSent_; }
  int64_t bytesReceived() const { return bytesReceived_; }

 private:
  struct Call {
    const char* op = "";
    std::vector<PendingOp> replies, sends;
    int64_t payloadBytes = 0;
  };
  // A receive for each shard's next reply, into replies[p].
  std::vector<PendingOp> postReplies(std::vector<at::Tensor>& replies);
  // Sends `request` to shard p and counts its bytes.
  PendingOp sendRequest(const at::Tensor& request, int p);
  // Throws PeerError naming the parameter server when a reply's header
  // announces more than its buffer holds.
  void checkReplyShape(const char* op, const Reply& reply, int rank) const;
  // Waits for a call's replies, recording each round trip since `start`.
  void finishCall(Call& call, const std::vector<at::Tensor>& replies,
                  std::chrono::steady_clock::time_point start);

  ProcessGroup& global_;
  int numPs_;
  int trainerIndex_;
  int64_t dim_;
  MessageSizes sizes_;
  HybridTrainerMetrics& metrics_;
  std::vector<at::Tensor> replies_, stepReplies_;  // one per shard, reused
  std::vector<at::Tensor> requests_;               // one per shard, reused
  at::Tensor stepRequest_;
  Call step_;
  std::vector<PendingOp> pushSends_;
  std::vector<PendingOp> lookupReplies_;  // posted for the next lookup
  int64_t pushBytes_ = 0;
  int64_t bytesSent_ = 0;
  int64_t bytesReceived_ = 0;
  std::chrono::steady_clock::time_point updateStart_;
};

}  // namespace distbench::worker
