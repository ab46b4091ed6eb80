// The fixed-size message headers ranks exchange over Gloo, and their tags.
// Replaces torch.distributed.rpc's pickled calls with explicit messages:
// every header is kHeaderWords int64s; any payload follows on its own tag
// with a size the header announced, so a receiver always knows what to post.
#pragma once

#include <ATen/core/Tensor.h>

#include <array>
#include <cstdint>
#include <cstring>

namespace distbench::worker {

inline constexpr int kHeaderWords = 8;
using Header = std::array<int64_t, kHeaderWords>;

// Tags keep the streams between a pair of ranks apart; within one tag Gloo
// delivers in order.
inline constexpr int kTagRequest = 101;  // trainer/master -> ps: headers
inline constexpr int kTagPayload = 102;  // trainer -> ps: tensors after a header
inline constexpr int kTagReply = 103;    // ps -> trainer/master
inline constexpr int kTagControl = 104;  // master <-> trainer

enum class Op : int64_t {
  // master -> ps: [op, shard, numEmbeddings, dim, mode, seed, lrBits, 0]
  CreateShard = 1,
  // trainer -> ps: [op, trainer, step, nIndices, nOffsets, 0, 0, 0]; payload int64[nIndices+nOffsets]
  Lookup = 2,
  // trainer -> ps: [op, trainer, step, rows, dim, 0, 0, 0]; payload float[rows*dim]
  PushGrad = 3,
  // trainer -> ps: [op, trainer, step, 0...]
  Step = 4,
  // master -> ps: [op, 0...]
  Shutdown = 5,
  // master -> trainer: [op, 0...]
  Start = 6,
  // trainer -> master: [op, trainer, epoch, examples, secondsBits, isWarmup, 0, 0]
  EpochDone = 7,
  // master -> trainer: [op, 0...]
  Finish = 8,
};

const char* toString(Op op);

at::Tensor packHeader(const Header& words);
Header unpackHeader(const at::Tensor& tensor);
at::Tensor emptyHeader();
// The reply to requests that return nothing but completion.
at::Tensor ackTensor();

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
