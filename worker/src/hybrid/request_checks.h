// What a parameter server accepts from its peers. Every size and index in a
// request comes from another process, so it is checked against the spec
// before it sizes a copy or a tensor view: a buggy or hostile trainer gets
// its request refused, never an out-of-bounds read or write.
#pragma once

#include <cstdint>

#include "distbench/api/benchmark_spec.h"
#include "hybrid/wire.h"

namespace distbench::worker {

// Each throws std::invalid_argument saying what is wrong.

// `payload`: the request's nIndices indices, then its nBags offsets.
void checkLookup(const LookupRequest& request, const int64_t* payload,
                 const api::HybridDDPRPCSpec& spec);
// bags must equal the trainer's last lookup's.
void checkGradient(const PushGradRequest& request, int64_t lookedUpBags,
                   const api::HybridDDPRPCSpec& spec);
// Must describe this shard as the spec does (the spec sized every message).
void checkCreateShard(const CreateShardRequest& request, int shardIndex,
                      const api::HybridDDPRPCSpec& spec);

}  // namespace distbench::worker
