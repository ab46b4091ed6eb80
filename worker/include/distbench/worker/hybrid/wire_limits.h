// Bounds on every size the parameter-server protocol derives from the
// config or from another rank's message, and 64-bit arithmetic that refuses
// to overflow. The api's validation enforces the same bounds on the spec
// (api::kMaxBagIndices, kMaxEmbeddingDim, kMaxNumEmbeddings,
// kMaxShardBytes, kMaxWorldSize); the worker checks again because it does
// not assume its config was validated, and a peer's header is not the spec.
#pragma once

#include <cstdint>
#include <string>

#include "distbench/api/spec_limits.h"

namespace distbench::worker {

inline constexpr int64_t kMaxWireBagIndices = int64_t{1} << 20;  // per lookup
inline constexpr int64_t kMaxWireEmbeddingDim = int64_t{1} << 16;
inline constexpr int64_t kMaxWireNumEmbeddings = int64_t{1} << 31;  // rows per shard
inline constexpr int64_t kMaxWireShardBytes = int64_t{16} << 30;   // 16 GiB
// The largest message the spec allows (api::kMaxPsMessageBytes, a derived
// limit): a lookup reply of maxBagIndices bags of embeddingDim floats, or
// the request's 2 x maxBagIndices int64, with the 64-byte header. Every
// rank zero-fills a few per peer, so the factors' own bounds (a 256 GiB
// product) are not enough; the real buffers are sized from the spec below it.
inline constexpr int64_t kMaxMessageBytes = api::kMaxPsMessageBytes;

// a * b, or std::overflow_error naming `what` ("maxBagIndices × embeddingDim").
int64_t checkedMul(int64_t a, int64_t b, const std::string& what);
int64_t checkedAdd(int64_t a, int64_t b, const std::string& what);

// Throws std::invalid_argument "<field> = <value>: must be lo..hi" unless
// lo <= value <= hi. Call before the value sizes anything.
void checkRange(const std::string& field, int64_t value, int64_t lo, int64_t hi);

}  // namespace distbench::worker
