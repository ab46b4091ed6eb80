// The phases a HybridDDPRPC training step is split into for the report
// (docs/report-schema.md#hybridddprpc). The trainer times them, EpochDone
// carries them (wire.h) and the master summarizes them per trainer. They are
// disjoint parts of a step, so their sum is at most the step's time: batch
// generation and the bookkeeping between them are in no phase.
#pragma once

#include <array>

namespace distbench::worker {

// The order is the wire order of EpochDone's payload: never reorder; a new
// phase goes at the end (and changes the message size on every rank).
enum class Phase : int {
  Lookup,         // the P embedding lookups on the parameter servers
  Forward,        // dense stack and loss, on the looked-up rows
  Backward,       // loss.backward(), which launches the bucket allreduces
  Push,           // gradients to every shard and every shard's step acknowledged
  AllreduceWait,  // what is left of the dense allreduce after the push
  OptimizerStep,  // the local SGD step on the dense parameters
};
inline constexpr int kPhaseCount = 6;

// Seconds per phase, indexed by Phase.
using PhaseSeconds = std::array<double, kPhaseCount>;

// The report's keys, indexed by Phase.
inline constexpr std::array<const char*, kPhaseCount> kPhaseNames = {
    "lookup", "forward", "backward", "push", "allreduceWait", "optimizerStep"};

inline void add(PhaseSeconds& s, Phase p, double seconds) { s[static_cast<int>(p)] += seconds; }

}  // namespace distbench::worker
