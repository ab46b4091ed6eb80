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

// [op, trainer, step, n, bags] + n indices + bags offsets.
void checkLookup(const Header& header, const int64_t* payload, const api::HybridDDPRPCSpec& spec);
// [op, trainer, step, bags, dim]; bags must equal the trainer's last lookup's.
void checkGradient(const Header& header, int64_t lookedUpBags, const api::HybridDDPRPCSpec& spec);
// [op, shard, numEmbeddings, dim, mode, seed, lrBits]: must describe this
// shard as the spec does (the spec sized every message).
void checkCreateShard(const Header& header, int shardIndex, const api::HybridDDPRPCSpec& spec);

}  // namespace distbench::worker
