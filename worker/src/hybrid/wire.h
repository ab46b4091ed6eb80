// The messages ranks exchange over Gloo, in place of torch.distributed.rpc's
// pickled calls. Every message between a trainer (or the master) and a
// parameter server is one fixed-size byte buffer: an 8-word header, then the
// payload. Fixed sizes let each side post its receive before the peer sends,
// and Gloo then moves a message in one hop instead of a three-way
// send-ready/recv-ready/data exchange.
#pragma once

#include <ATen/core/Tensor.h>

#include <array>
#include <cstdint>
#include <cstring>

#include "distbench/api/benchmark_spec.h"

namespace distbench::worker {

inline constexpr int kHeaderWords = 8;
inline constexpr int64_t kHeaderBytes = kHeaderWords * sizeof(int64_t);
using Header = std::array<int64_t, kHeaderWords>;

// Tags keep the streams between a pair of ranks apart; within one tag Gloo
// delivers in order.
inline constexpr int kTagRequest = 101;   // trainer/master -> ps
inline constexpr int kTagReply = 103;     // ps -> trainer/master
inline constexpr int kTagControl = 104;   // master <-> trainer: bare headers

enum class Op : int64_t {
  // master -> ps: [op, shard, numEmbeddings, dim, mode, seed, lrBits, 0]
  CreateShard = 1,
  // trainer -> ps: [op, trainer, step, nIndices, nBags, ...]; payload int64 indices, offsets
  // reply: [op, bags, dim, ...]; payload float [bags, dim]
  Lookup = 2,
  // trainer -> ps: [op, trainer, step, bags, dim, ...]; payload float [bags, dim];
  // no reply: the Step that always follows on the same stream answers for it
  PushGrad = 3,
  // trainer -> ps: [op, trainer, step, ...]
  Step = 4,
  // master -> ps, after every trainer said Done: [op, ...]
  Shutdown = 5,
  // master -> trainer
  Start = 6,
  // trainer -> master: [op, trainer, epoch, examples, secondsBits, isWarmup, 0, 0]
  EpochDone = 7,
  // master -> trainer: everyone may exit
  Finish = 8,
  // trainer -> ps: no more requests from this trainer; no reply
  Done = 9,
  // trainer -> master within an epoch, at least every quarter peer timeout:
  // [op, trainer, step, ...]; keeps a long epoch from looking like a death
  Heartbeat = 10,
};

const char* toString(Op op);

// Buffer sizes for a benchmark: big enough for its largest request and reply
// (a batch has at most maxBagIndices indices, so at most as many bags).
// Throws std::invalid_argument naming the spec field when a size would pass
// the bounds of wire_limits.h, before anything is allocated.
struct MessageSizes {
  int64_t request = 0;
  int64_t reply = 0;
};
MessageSizes messageSizes(const api::HybridDDPRPCSpec& spec);

// Refuses (std::invalid_argument) sizes outside kHeaderBytes..kMaxMessageBytes.
at::Tensor newMessage(int64_t bytes);
Header readHeader(const at::Tensor& message);
void writeHeader(at::Tensor& message, const Header& header);
template <typename T>
T* payloadOf(const at::Tensor& message) {
  return reinterpret_cast<T*>(static_cast<uint8_t*>(message.data_ptr()) + kHeaderBytes);
}

// Control messages (master <-> trainer) are bare headers: newMessage(kHeaderBytes).
at::Tensor packHeader(const Header& words);

inline int64_t doubleBits(double v) {
  int64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}
inline double bitsDouble(int64_t bits) {
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

}  // namespace distbench::worker
