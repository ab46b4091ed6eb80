#include "wire.h"

#include <ATen/ATen.h>

#include <algorithm>

namespace distbench::worker {

const char* toString(Op op) {
  switch (op) {
    case Op::CreateShard:
      return "create_shard";
    case Op::Lookup:
      return "lookup";
    case Op::PushGrad:
      return "push_grad";
    case Op::Step:
      return "step";
    case Op::Shutdown:
      return "shutdown";
    case Op::Start:
      return "start";
    case Op::EpochDone:
      return "epoch_done";
    case Op::Finish:
      return "finish";
    case Op::Done:
      return "done";
  }
  return "unknown";
}

MessageSizes messageSizes(const api::HybridDDPRPCSpec& spec) {
  const int64_t maxBags = spec.maxBagIndices;
  const int64_t lookupRequest = 2 * maxBags * static_cast<int64_t>(sizeof(int64_t));
  const int64_t pooled = maxBags * spec.embeddingDim * static_cast<int64_t>(sizeof(float));
  return {kHeaderBytes + std::max(lookupRequest, pooled), kHeaderBytes + pooled};
}

at::Tensor newMessage(int64_t bytes) { return at::zeros({bytes}, at::kByte); }

Header readHeader(const at::Tensor& message) {
  Header h{};
  std::memcpy(h.data(), message.data_ptr(), kHeaderBytes);
  return h;
}

void writeHeader(at::Tensor& message, const Header& header) {
  std::memcpy(message.data_ptr(), header.data(), kHeaderBytes);
}

at::Tensor packHeader(const Header& words) {
  at::Tensor message = newMessage(kHeaderBytes);
  writeHeader(message, words);
  return message;
}

}  // namespace distbench::worker
