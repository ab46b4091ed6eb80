// Limits on the quantities derived from several fields at once, where each
// field alone is in range but a product or sum is not: warmup + measured
// rounds, the parameter-server message, the dense stack, the timing samples
// the master keeps, and the memory one rank needs (resource_estimate.h).
// validate() applies them, so `distbench validate`, `distbench run` and the
// operator (through parseDistBenchmark) refuse the same specs, each error
// naming the field to change. docs/crd-reference.md lists the limits.
#pragma once

#include <cstdint>
#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "distbench/api/spec_error.h"

namespace distbench::api {

// warmup + measured epochs (hybridDDPRPC) or iterations (ddp, collectives):
// keeps every per-round count, and 5 × iterations, far inside an int.
inline constexpr int64_t kMaxRounds = 1'000'000;
// (warmupEpochs + epochs) × batchesPerEpoch: a trainer's training steps.
inline constexpr int64_t kMaxTrainingSteps = int64_t{1} << 31;
// One parameter-server message (psMessageBytes): every hybrid rank keeps
// three per peer (the parameter servers, per trainer), zero-filled.
inline constexpr int64_t kMaxPsMessageBytes = int64_t{256} << 20;  // 256 MiB
// A dense layer's width, and the float32 parameters of the whole stack.
inline constexpr int64_t kMaxDenseWidth = int64_t{1} << 20;
inline constexpr int64_t kMaxDenseParameters = int64_t{1} << 28;  // 1 GiB
// DDP: one replica's input batch, batchSize × 3 × imageSize² × 4 bytes.
inline constexpr int64_t kMaxDdpInputBytes = int64_t{1} << 30;  // 1 GiB
inline constexpr int64_t kMaxDdpNumClasses = int64_t{1} << 20;
// Timing samples (doubles) the master gathers: 8 bytes each.
inline constexpr int64_t kMaxTimingSamples = int64_t{1} << 26;  // 512 MiB
// rankMemoryBytes of any role: what one pod may ask of its node.
inline constexpr int64_t kMaxRankMemoryBytes = int64_t{64} << 30;  // 64 GiB

// Ends every derived-limit message, so a reader knows where the limit is
// stated (and a test can tell these errors from a single field's).
inline constexpr const char* kDerivedLimitNote = "a derived limit: docs/crd-reference.md";

// The errors of the derived limits. Assumes the per-field checks passed
// (each factor ≥ its minimum); computes saturating, so it never overflows.
std::vector<FieldError> checkSpecLimits(const DistBenchmarkSpec& s);

}  // namespace distbench::api
