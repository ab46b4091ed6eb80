#include "distbench/worker/hybrid/ps_client.h"

#include <ATen/ATen.h>

#include <chrono>
#include <stdexcept>

#include "distbench/api/renderer.h"
#include "distbench/worker/comm/peer_error.h"
#include "distbench/worker/common/stopwatch.h"
#include "distbench/worker/hybrid/wire_buffer.h"
#include "distbench/worker/hybrid/wire_limits.h"

namespace distbench::worker {

ParameterServerClient::ParameterServerClient(ProcessGroup& global, int numParameterServers,
                                             int trainerIndex, int64_t embeddingDim,
                                             MessageSizes sizes, HybridTrainerMetrics& metrics)
    : global_(global),
      numPs_(numParameterServers),
      trainerIndex_(trainerIndex),
      dim_(embeddingDim),
      sizes_(sizes),
      metrics_(metrics) {
  for (int p = 0; p < numPs_; ++p) {
    replies_.push_back(newMessage(sizes_.reply));
    stepReplies_.push_back(newMessage(sizes_.reply));
    requests_.push_back(newMessage(sizes_.request));
  }
  stepRequest_ = newMessage(sizes_.request);
}

std::vector<PendingOp> ParameterServerClient::postReplies(std::vector<at::Tensor>& replies) {
  std::vector<PendingOp> posted;
  for (int p = 0; p < numPs_; ++p)
    posted.push_back(global_.recv(replies[p], api::parameterServerRank(p), kTagReply));
  return posted;
}

PendingOp ParameterServerClient::sendRequest(const at::Tensor& request, int p) {
  bytesSent_ += static_cast<int64_t>(request.nbytes());
  return global_.send(request, api::parameterServerRank(p), kTagRequest);
}

void ParameterServerClient::finishCall(Call& call, const std::vector<at::Tensor>& replies,
                                       Clock::time_point start) {
  for (int p = 0; p < numPs_; ++p) {
    call.replies[p].wait();
    const double seconds = secondsSince(start);
    bytesReceived_ += static_cast<int64_t>(replies[p].nbytes());
    const Reply reply = Reply::decode(readHeader(replies[p]));
    checkReplyShape(call.op, reply, api::parameterServerRank(p));
    metrics_.observeRpc(
        call.op, seconds, kHeaderBytes + call.payloadBytes,
        kHeaderBytes + reply.bags * reply.dim * static_cast<int64_t>(sizeof(float)));
  }
  for (auto& s : call.sends) s.wait();
  call = Call{};
}

void ParameterServerClient::checkReplyShape(const char* op, const Reply& reply, int rank) const {
  // The fields size what we read from the reply: bound them before any use.
  try {
    checkRange("reply header bags", reply.bags, 0, kMaxWireBagIndices);
    checkRange("reply header embeddingDim", reply.dim, 0, kMaxWireEmbeddingDim);
    if (kHeaderBytes + reply.bags * reply.dim * static_cast<int64_t>(sizeof(float)) >
        sizes_.reply) {
      throw std::invalid_argument("reply header announces [" + std::to_string(reply.bags) + ", " +
                                  std::to_string(reply.dim) + "] floats, more than the " +
                                  std::to_string(sizes_.reply) + "-byte reply holds");
    }
  } catch (const std::invalid_argument& e) {
    throw PeerError(std::string(op) + " reply from " + global_.peerName(rank) +
                    " refused: " + e.what());
  }
}

std::vector<at::Tensor> ParameterServerClient::lookup(int64_t step, const at::Tensor& indices,
                                                      const at::Tensor& offsets) {
  const int64_t n = indices.size(0);
  const int64_t bags = offsets.size(0);
  if (2 * n * 8 + kHeaderBytes > sizes_.request || bags > n) {
    throw std::invalid_argument("lookup of " + std::to_string(n) + " indices exceeds the " +
                                "message size for maxBagIndices");
  }
  at::Tensor& request = requests_[0];
  writeHeader(request, LookupRequest{trainerIndex_, step, n, bags}.encode());
  int64_t* payload = payloadOf<int64_t>(request);
  std::memcpy(payload, indices.data_ptr<int64_t>(), n * sizeof(int64_t));
  std::memcpy(payload + n, offsets.data_ptr<int64_t>(), bags * sizeof(int64_t));
  const auto start = Clock::now();
  Call call;
  call.op = "lookup";
  call.payloadBytes = (n + bags) * static_cast<int64_t>(sizeof(int64_t));
  // Posted with the previous step's update, but for the first step.
  call.replies = lookupReplies_.empty() ? postReplies(replies_) : std::move(lookupReplies_);
  lookupReplies_.clear();
  for (int p = 0; p < numPs_; ++p) call.sends.push_back(sendRequest(request, p));
  finishCall(call, replies_, start);

  std::vector<at::Tensor> results;
  for (int p = 0; p < numPs_; ++p) {
    const Reply reply = Reply::decode(readHeader(replies_[p]));
    if (reply.bags != bags || reply.dim != dim_) {
      throw std::runtime_error(
          "lookup reply from " + global_.peerName(api::parameterServerRank(p)) + " has shape [" +
          std::to_string(reply.bags) + ", " + std::to_string(reply.dim) + "], expected [" +
          std::to_string(bags) + ", " + std::to_string(dim_) + "]");
    }
    results.push_back(
        at::from_blob(payloadOf<float>(replies_[p]), {bags, dim_}, at::kFloat).clone());
  }
  return results;
}

void ParameterServerClient::beginUpdate(int64_t step, const std::vector<at::Tensor>& gradients,
                                        bool anotherStep) {
  int64_t bytes = 0;
  for (int p = 0; p < numPs_; ++p) {
    at::Tensor g = gradients[p].contiguous();
    const int64_t bags = g.size(0);
    bytes = g.numel() * static_cast<int64_t>(sizeof(float));
    if (g.size(1) != dim_ || kHeaderBytes + bytes > sizes_.request) {
      throw std::invalid_argument("gradient for shard " + std::to_string(p) +
                                  " does not fit the message size");
    }
    writeHeader(requests_[p], PushGradRequest{trainerIndex_, step, bags, dim_}.encode());
    std::memcpy(payloadOf<float>(requests_[p]), g.data_ptr<float>(), bytes);
  }
  writeHeader(stepRequest_, StepRequest{trainerIndex_, step}.encode());
  pushBytes_ = bytes;
  updateStart_ = Clock::now();
  // Shard by shard, everything that shard gets goes out together, so its
  // thread wakes once for the lot: the push (no reply of its own: Gloo
  // completes the send once the shard's posted receive has taken it, and
  // the step's reply confirms both), the step, and the receives for the
  // step's reply and, if another step follows, its lookup's reply (a shard
  // answers one trainer in order, so they are matched in that order).
  pushSends_.clear();
  step_ = Call{};
  step_.op = "step";
  for (int p = 0; p < numPs_; ++p) {
    pushSends_.push_back(sendRequest(requests_[p], p));
    step_.replies.push_back(global_.recv(stepReplies_[p], api::parameterServerRank(p), kTagReply));
    step_.sends.push_back(sendRequest(stepRequest_, p));
    if (anotherStep)
      lookupReplies_.push_back(global_.recv(replies_[p], api::parameterServerRank(p), kTagReply));
  }
}

void ParameterServerClient::endUpdate() {
  for (auto& send : pushSends_) {
    send.wait();
    metrics_.observeRpc("push_grad", secondsSince(updateStart_), kHeaderBytes + pushBytes_, 0);
  }
  finishCall(step_, stepReplies_, updateStart_);
}

void ParameterServerClient::done() {
  writeHeader(requests_[0], DoneNotice{trainerIndex_}.encode());
  std::vector<PendingOp> sends;
  for (int p = 0; p < numPs_; ++p) sends.push_back(sendRequest(requests_[0], p));
  for (auto& s : sends) s.wait();
}

}  // namespace distbench::worker
