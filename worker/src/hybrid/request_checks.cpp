#include "distbench/worker/hybrid/request_checks.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "distbench/worker/hybrid/wire_limits.h"

namespace distbench::worker {
namespace {

[[noreturn]] void refuse(const std::string& what) { throw std::invalid_argument(what); }

std::string str(int64_t v) { return std::to_string(v); }

}  // namespace

void checkLookup(const LookupRequest& request, const int64_t* payload,
                 const api::HybridDDPRPCSpec& spec) {
  const int64_t n = request.nIndices, bags = request.nBags;
  // Ranges first: nothing below multiplies a value that was not bounded.
  checkRange("lookup header nIndices", n, 1,
             std::min<int64_t>(spec.maxBagIndices, kMaxWireBagIndices));
  if (bags < 1 || bags > n) refuse("lookup of " + str(bags) + " bags for " + str(n) + " indices");
  for (int64_t i = 0; i < n; ++i) {
    if (payload[i] < 0 || payload[i] >= spec.numEmbeddings) {
      refuse("lookup index " + str(payload[i]) + " outside the table's " + str(spec.numEmbeddings) +
             " rows");
    }
  }
  const int64_t* offsets = payload + n;
  if (offsets[0] != 0) refuse("lookup offsets must start at 0, not " + str(offsets[0]));
  for (int64_t b = 1; b < bags; ++b) {
    if (offsets[b] < offsets[b - 1] || offsets[b] > n) {
      refuse("lookup offsets must rise within 0.." + str(n) + "; offset " + str(b) + " is " +
             str(offsets[b]));
    }
  }
}

void checkFrame(const Header& h, int64_t frameBytes) {
  int64_t payload = 0;
  switch (opOf(h)) {
    case Op::Lookup: {
      const LookupRequest r = LookupRequest::decode(h);
      checkRange("lookup header nIndices", r.nIndices, 0, kMaxWireBagIndices);
      checkRange("lookup header nBags", r.nBags, 0, kMaxWireBagIndices);
      payload = (r.nIndices + r.nBags) * static_cast<int64_t>(sizeof(int64_t));
      break;
    }
    case Op::PushGrad: {
      const PushGradRequest r = PushGradRequest::decode(h);
      checkRange("push_grad header bags", r.bags, 0, kMaxWireBagIndices);
      checkRange("push_grad header dim", r.dim, 0, kMaxWireEmbeddingDim);
      payload = r.bags * r.dim * static_cast<int64_t>(sizeof(float));
      break;
    }
    default:
      break;
  }
  if (frameBytes != kHeaderBytes + payload) {
    refuse("a " + std::string(toString(opOf(h))) + " frame of " + str(frameBytes) +
           " bytes, but its header announces " + str(kHeaderBytes + payload));
  }
}

void checkGradient(const PushGradRequest& request, int64_t lookedUpBags,
                   const api::HybridDDPRPCSpec& spec) {
  const int64_t bags = request.bags, dim = request.dim;
  if (lookedUpBags < 1) refuse("gradient pushed without a lookup before it");
  if (bags != lookedUpBags || dim != spec.embeddingDim) {
    refuse("gradient of shape [" + str(bags) + ", " + str(dim) + "], expected [" +
           str(lookedUpBags) + ", " + str(spec.embeddingDim) + "]");
  }
}

void checkStepOrder(Op op, int64_t step, const TrainerProgress& progress) {
  const bool lookup = op == Op::Lookup;
  if (step != progress.nextStep) {
    refuse(std::string(toString(op)) + " for step " + str(step) + ", expected step " +
           str(progress.nextStep) + " (this trainer's next)");
  }
  if (lookup && progress.lookedUp) {
    refuse("a second lookup for step " + str(step) + " before its update");
  }
  if (!lookup && !progress.lookedUp) {
    refuse(std::string(toString(op)) + " for step " + str(step) + " before its lookup");
  }
}

void checkCreateShard(const CreateShardRequest& request, int shardIndex,
                      const api::HybridDDPRPCSpec& spec) {
  const int64_t rows = request.numEmbeddings, dim = request.embeddingDim;
  // The shard is allocated from these fields: bound them, and the bytes
  // they make, before comparing with the (possibly unvalidated) spec.
  checkRange("create_shard header numEmbeddings", rows, 1, kMaxWireNumEmbeddings);
  checkRange("create_shard header embeddingDim", dim, 1, kMaxWireEmbeddingDim);
  checkRange("create_shard numEmbeddings × embeddingDim × 4 bytes",
             checkedMul(checkedMul(rows, dim, "numEmbeddings × embeddingDim"), 4, "shard bytes"), 4,
             kMaxWireShardBytes);
  if (request.shard != shardIndex || rows != spec.numEmbeddings || dim != spec.embeddingDim ||
      request.mode != static_cast<int64_t>(spec.embeddingMode) || !(request.learningRate > 0)) {
    refuse("create_shard for shard " + str(request.shard) + " of " + str(rows) + "x" + str(dim) +
           " does not match this parameter server (shard " + str(shardIndex) + ", " +
           str(spec.numEmbeddings) + "x" + str(spec.embeddingDim) + ") and its config");
  }
}

}  // namespace distbench::worker
