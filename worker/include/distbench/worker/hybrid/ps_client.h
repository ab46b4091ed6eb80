// A trainer's calls to the parameter servers, over its link to each
// (ps_link.h). Each call goes to all P shards at once: the P requests are
// written, then the replies read in shard order, so the P lookups are in
// flight together.
#pragma once

#include <ATen/core/Tensor.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "distbench/worker/comm/framed_socket.h"
#include "distbench/worker/hybrid/hybrid_metrics.h"
#include "distbench/worker/hybrid/wire.h"

namespace distbench::worker {

class ParameterServerClient {
 public:
  // `links[p]`: the link to parameter server p.
  ParameterServerClient(std::vector<FramedSocket> links, int trainerIndex, int64_t embeddingDim,
                        MessageSizes sizes, HybridTrainerMetrics& metrics);

  // One [bags, dim] tensor per shard.
  std::vector<at::Tensor> lookup(int64_t step, const at::Tensor& indices,
                                 const at::Tensor& offsets);
  // The backward half of distributed autograd plus the distributed optimizer
  // step: gradients[p] = d(loss)/d(lookup p) goes to shard p, then a step.
  // Both requests leave back to back, shard by shard (a shard serves one
  // trainer in order, so the step sees the gradient). begin returns once
  // they are written; end reads every shard's answer to the step, which
  // answers for the push too, recording each push's and each step's round
  // trip.
  void beginUpdate(int64_t step, const std::vector<at::Tensor>& gradients);
  void endUpdate();
  // Tells every shard this trainer is finished, and closes the links.
  void done();

  // Bytes this client has put on the links to all parameter servers, and
  // taken off them, so far: each frame's header, payload and length.
  int64_t bytesSent() const { return bytesSent_; }
  int64_t bytesReceived() const { return bytesReceived_; }

 private:
  // Sends the first `bytes` of `request` to shard p and counts them.
  void sendRequest(const at::Tensor& request, int64_t bytes, int p);
  // Reads shard p's reply to `op` into `reply`; checks its header against
  // the frame and the buffer; records the round trip since `start`.
  Reply receiveReply(const char* op, int p, at::Tensor& reply, int64_t requestBytes,
                     std::chrono::steady_clock::time_point start);

  std::vector<FramedSocket> links_;
  int numPs_;
  int trainerIndex_;
  int64_t dim_;
  MessageSizes sizes_;
  HybridTrainerMetrics& metrics_;
  std::vector<at::Tensor> replies_;   // one per shard, reused
  std::vector<at::Tensor> requests_;  // one per shard, reused
  at::Tensor stepRequest_, stepReply_;
  int64_t pushBytes_ = 0;
  int64_t bytesSent_ = 0;
  int64_t bytesReceived_ = 0;
  std::chrono::steady_clock::time_point updateStart_;
};

}  // namespace distbench::worker
