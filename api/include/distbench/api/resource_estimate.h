// What a benchmark's sizes cost a rank: the parameter-server messages, the
// memory each role holds, and the timing samples the master gathers. The
// formulas follow what the worker allocates (worker/src/hybrid/wire.cpp,
// parameter_server.cpp, ps_client.cpp, master.cpp; ddp_row.cpp;
// collective_runner.cpp), so that validation refuses what would exhaust a
// node and the operator can request what a pod needs. Every result is
// computed saturating at INT64_MAX: an unvalidated spec gives a huge number,
// never an overflow. docs/crd-reference.md ("Derived limits") states them.
#pragma once

#include <cstdint>
#include <string>

#include "distbench/api/benchmark_spec.h"
#include "distbench/api/role.h"

namespace distbench::api {

// The 64-byte header every parameter-server message starts with.
inline constexpr int64_t kPsHeaderBytes = 64;
// What a worker holds before the benchmark allocates anything: LibTorch's
// libraries, thread pools and allocator arenas. A generous round figure:
// the tutorial preset's ranks peaked at 160 to 180 MiB RSS (CPU, Gloo).
inline constexpr int64_t kRankBaseBytes = int64_t{512} << 20;
// DDP: bytes a ResNet-class model keeps per input byte while training
// (activations saved for backward, their gradients, the workspace). A
// heuristic, not a measurement: ResNet-101 at batch 32 and 224 px keeps
// roughly 5 GiB, about 250 × its 19 MiB input.
inline constexpr int64_t kDdpBytesPerInputByte = 256;
// DDP: float32 copies of the largest model's parameters (the spec's models,
// their classifier numClasses wide): parameters, gradients, DDP buckets,
// momentum.
inline constexpr int64_t kDdpCopiesPerParameter = 4;
// Collectives: bytes a rank holds per byte of maxBytes: a case's input,
// output and expected result, the int64 patterns they are built from, and
// what the allocator keeps between cases. Measured on CPU with Gloo, two
// ranks: raising maxBytes from 16 to 64 MiB raised a trainer's peak RSS from
// 790 to 1115 MiB, about 7 bytes per byte.
inline constexpr int64_t kCollectiveBytesPerMaxByte = 8;

// Fabric: the compute probe's GEMM side on `device`: computeProbeSize, or
// where that is 0 the size for the device (512 on the CPU, about 10 ms a
// sample on one core; 8192 on a GPU, long enough to time with CUDA events).
inline constexpr int kFabricCpuProbeSize = 512;
inline constexpr int kFabricCudaProbeSize = 8192;
int fabricProbeSide(const FabricSpec& f, Device device);
// Fabric: the pairs of `trainers` nodes the planner measures at most: all of
// them up to allPairsUpTo nodes, past it a tenth of them plus a pass that
// covers every node (report/fabric_plan.h).
int64_t fabricPairsPlanned(const FabricSpec& f, int64_t trainers);

// Saturating arithmetic on non-negative values (negatives count as 0).
int64_t saturatingAdd(int64_t a, int64_t b);
int64_t saturatingMul(int64_t a, int64_t b);

// The larger parameter-server message, a lookup request
// (16 × maxBagIndices) or reply (4 × maxBagIndices × embeddingDim), with
// its header: the size of every buffer a hybrid rank allocates per peer.
int64_t psMessageBytes(const HybridDDPRPCSpec& h);
// float32 parameters of the dense stack after the lookups: its input is
// parameterServers × embeddingDim wide. Ignores tokens that do not parse.
int64_t denseParameters(const DistBenchmarkSpec& s);
// Bytes one rank of `role` is expected to hold at its peak, kRankBaseBytes
// included.
int64_t rankMemoryBytes(const DistBenchmarkSpec& s, Role role);
// Timing samples (doubles) the master gathers over the whole run.
int64_t timingSamples(const DistBenchmarkSpec& s);

// The memory a gang pod of `role` requests, and its limit, when the role's
// template names no memory: the estimate rounded up to MiB, and twice that.
inline constexpr int64_t kMemoryLimitFactor = 2;
struct MemoryResources {
  std::string request;  // e.g. "1024Mi"
  std::string limit;
};
MemoryResources defaultMemory(const DistBenchmarkSpec& s, Role role);

}  // namespace distbench::api
