// What a parameter server accepts from its peers. Every size and index in a
// request comes from another process, so it is checked against the spec
// before it sizes a copy or a tensor view: a buggy or hostile trainer gets
// its request refused, never an out-of-bounds read or write.
#pragma once

#include <cstdint>

#include "distbench/api/benchmark_spec.h"
#include "distbench/worker/hybrid/wire.h"

namespace distbench::worker {

// Each throws std::invalid_argument saying what is wrong.

// `payload`: the request's nIndices indices, then its nBags offsets.
void checkLookup(const LookupRequest& request, const int64_t* payload,
                 const api::HybridDDPRPCSpec& spec);
// bags must equal the trainer's last lookup's.
void checkGradient(const PushGradRequest& request, int64_t lookedUpBags,
                   const api::HybridDDPRPCSpec& spec);
// Where one trainer is in its steps, as its parameter servers see it: each
// step is a lookup, gradient pushes and the optimizer step, for steps
// 0, 1, 2, ... in order (worker/src/hybrid/trainer.cpp).
struct TrainerProgress {
  int64_t nextStep = 0;   // the step its next lookup or update is for
  bool lookedUp = false;  // its lookup for nextStep was served
};
// A lookup (`op` Lookup) must be for nextStep and come first; a gradient
// push or step (PushGrad, Step) must be for nextStep after its lookup. So a
// step number is never far from the trainer's own count (no INT64_MIN, no
// step a billion ahead), and what the server keeps per step stays bounded.
void checkStepOrder(Op op, int64_t step, const TrainerProgress& progress);
// A request arrives as one frame (hybrid/ps_link.h) whose length must be
// exactly its header and the payload the header announces: a frame that
// claims more than it carries is refused before its payload is read.
void checkFrame(const Header& h, int64_t frameBytes);
// Must describe this shard as the spec does (the spec sized every message).
void checkCreateShard(const CreateShardRequest& request, int shardIndex,
                      const api::HybridDDPRPCSpec& spec);

}  // namespace distbench::worker
