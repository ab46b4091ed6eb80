#include "distbench/worker/hybrid/ps_client.h"

#include <ATen/ATen.h>

#include <chrono>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "distbench/worker/comm/peer_error.h"
#include "distbench/worker/common/stopwatch.h"
#include "distbench/worker/hybrid/wire_buffer.h"
#include "distbench/worker/hybrid/wire_limits.h"

namespace distbench::worker {

ParameterServerClient::ParameterServerClient(std::vector<FramedSocket> links, int trainerIndex,
                                             int64_t embeddingDim, MessageSizes sizes,
                                             HybridTrainerMetrics& metrics)
    : links_(std::move(links)),
      numPs_(static_cast<int>(links_.size())),
      trainerIndex_(trainerIndex),
      dim_(embeddingDim),
      sizes_(sizes),
      metrics_(metrics) {
  for (int p = 0; p < numPs_; ++p) {
    replies_.push_back(newMessage(sizes_.reply));
    requests_.push_back(newMessage(sizes_.request));
  }
  stepRequest_ = newMessage(sizes_.request);
  stepReply_ = newMessage(sizes_.reply);
}

void ParameterServerClient::sendRequest(const at::Tensor& request, int64_t bytes, int p) {
  links_[p].send(request.data_ptr(), static_cast<size_t>(bytes));
  bytesSent_ += bytes + kFrameLengthBytes;
}

Reply ParameterServerClient::receiveReply(const char* op, int p, at::Tensor& reply,
                                          int64_t requestBytes, Clock::time_point start) {
  const size_t bytes = links_[p].receive(reply.data_ptr(), static_cast<size_t>(reply.nbytes()));
  const double seconds = secondsSince(start);
  bytesReceived_ += static_cast<int64_t>(bytes) + kFrameLengthBytes;
  const auto refuse = [&](const std::string& why) {
    throw PeerError(std::string(op) + " reply from " + links_[p].peer() + " refused: " + why);
  };
  if (bytes < static_cast<size_t>(kHeaderBytes))
    refuse("a frame of " + std::to_string(bytes) + " bytes, shorter than a header");
  const Reply r = Reply::decode(readHeader(reply));
  // The fields size what we read from the reply: bound them before any use.
  try {
    checkRange("reply header bags", r.bags, 0, kMaxWireBagIndices);
    checkRange("reply header embeddingDim", r.dim, 0, kMaxWireEmbeddingDim);
  } catch (const std::invalid_argument& e) {
    refuse(e.what());
  }
  const int64_t payload = r.bags * r.dim * static_cast<int64_t>(sizeof(float));
  if (kHeaderBytes + payload != static_cast<int64_t>(bytes))
    refuse("its header announces [" + std::to_string(r.bags) + ", " + std::to_string(r.dim) +
           "] floats, but the frame holds " + std::to_string(bytes) + " bytes");
  metrics_.observeRpc(op, seconds, requestBytes, static_cast<int64_t>(bytes));
  return r;
}

std::vector<at::Tensor> ParameterServerClient::lookup(int64_t step, const at::Tensor& indices,
                                                      const at::Tensor& offsets) {
  const int64_t n = indices.size(0);
  const int64_t bags = offsets.size(0);
  const int64_t bytes = kHeaderBytes + (n + bags) * static_cast<int64_t>(sizeof(int64_t));
  if (bytes > sizes_.request || bags > n) {
    throw std::invalid_argument("lookup of " + std::to_string(n) + " indices exceeds the " +
                                "message size for maxBagIndices");
  }
  at::Tensor& request = requests_[0];
  writeHeader(request, LookupRequest{trainerIndex_, step, n, bags}.encode());
  int64_t* payload = payloadOf<int64_t>(request);
  std::memcpy(payload, indices.data_ptr<int64_t>(), n * sizeof(int64_t));
  std::memcpy(payload + n, offsets.data_ptr<int64_t>(), bags * sizeof(int64_t));
  const auto start = Clock::now();
  for (int p = 0; p < numPs_; ++p) sendRequest(request, bytes, p);
  std::vector<at::Tensor> results;
  for (int p = 0; p < numPs_; ++p) {
    const Reply reply = receiveReply("lookup", p, replies_[p], bytes, start);
    if (reply.op != Op::Lookup || reply.bags != bags || reply.dim != dim_) {
      throw PeerError("lookup reply from " + links_[p].peer() + " has shape [" +
                      std::to_string(reply.bags) + ", " + std::to_string(reply.dim) +
                      "], expected [" + std::to_string(bags) + ", " + std::to_string(dim_) + "]");
    }
    results.push_back(
        at::from_blob(payloadOf<float>(replies_[p]), {bags, dim_}, at::kFloat).clone());
  }
  return results;
}

void ParameterServerClient::beginUpdate(int64_t step, const std::vector<at::Tensor>& gradients) {
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
  pushBytes_ = kHeaderBytes + bytes;
  updateStart_ = Clock::now();
  for (int p = 0; p < numPs_; ++p) {
    sendRequest(requests_[p], pushBytes_, p);
    sendRequest(stepRequest_, kHeaderBytes, p);
  }
}

void ParameterServerClient::endUpdate() {
  for (int p = 0; p < numPs_; ++p) {
    const Reply reply = receiveReply("step", p, stepReply_, kHeaderBytes, updateStart_);
    if (reply.op != Op::Step)
      throw PeerError("step reply from " + links_[p].peer() + " answers " + toString(reply.op));
    // The step's answer is the push's too: a shard serves one link in order.
    metrics_.observeRpc("push_grad", secondsSince(updateStart_), pushBytes_, 0);
  }
}

void ParameterServerClient::done() {
  writeHeader(requests_[0], DoneNotice{trainerIndex_}.encode());
  for (int p = 0; p < numPs_; ++p) sendRequest(requests_[0], kHeaderBytes, p);
  for (FramedSocket& link : links_) link.close();
}

}  // namespace distbench::worker
