#include "distbench/worker/hybrid/wire.h"

#include <algorithm>

#include "distbench/worker/hybrid/wire_limits.h"

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
    case Op::Heartbeat:
      return "heartbeat";
  }
  return "unknown";
}

MessageSizes messageSizes(const api::HybridDDPRPCSpec& spec) {
  // The config may not have been validated: bound the factors first, then
  // multiply in 64 bits that cannot overflow unnoticed.
  const std::string field = "spec.benchmark.hybridDDPRPC.";
  checkRange(field + "maxBagIndices", spec.maxBagIndices, 1, kMaxWireBagIndices);
  checkRange(field + "embeddingDim", spec.embeddingDim, 1, kMaxWireEmbeddingDim);
  const int64_t maxBags = spec.maxBagIndices;
  const int64_t lookupRequest = checkedMul(2 * static_cast<int64_t>(sizeof(int64_t)), maxBags,
                                           "lookup request bytes (16 × maxBagIndices)");
  const int64_t pooled = checkedMul(checkedMul(maxBags, spec.embeddingDim,
                                               "maxBagIndices × embeddingDim"),
                                    static_cast<int64_t>(sizeof(float)),
                                    "lookup reply bytes (maxBagIndices × embeddingDim × 4)");
  const MessageSizes sizes{checkedAdd(kHeaderBytes, std::max(lookupRequest, pooled), "request bytes"),
                           checkedAdd(kHeaderBytes, pooled, "reply bytes")};
  // The request is the larger: the one message size api::psMessageBytes
  // bounds, so refused here as validation refuses it.
  checkRange(field + "maxBagIndices: the message (64 + max(16, 4 × embeddingDim) × maxBagIndices bytes)",
             sizes.request, kHeaderBytes, kMaxMessageBytes);
  return sizes;
}

}  // namespace distbench::worker
