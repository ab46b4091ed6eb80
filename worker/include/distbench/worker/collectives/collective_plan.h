// The size sweep of a Collectives benchmark, as nccl-tests runs it: for each
// op and dtype, message sizes minBytes, minBytes*f, ... up to maxBytes. Pure
// arithmetic, so the master and every rank derive the same plan.
#pragma once

#include <cstdint>
#include <vector>

#include "distbench/api/benchmark_spec.h"

namespace distbench::worker {

struct CollectiveCase {
  api::CollectiveOp op = api::CollectiveOp::AllReduce;
  api::DType dtype = api::DType::Float32;
  // nccl-tests' size: the buffer for allreduce, broadcast, reduce and
  // sendrecv; the whole receive buffer (n chunks) for allgather, gather and
  // alltoall; the whole send buffer (n chunks) for reducescatter and scatter.
  int64_t bytes = 0;
  int64_t elements = 0;  // of that buffer: bytes / dtypeSize
};

bool operator==(const CollectiveCase&, const CollectiveCase&);
inline bool operator!=(const CollectiveCase& a, const CollectiveCase& b) { return !(a == b); }

// Whether `op`'s buffer is n chunks, one per rank.
bool isChunked(api::CollectiveOp op);

// Elements of the buffer a size of `bytes` gives `op` on `ranks` ranks:
// rounded down to whole elements and, for chunked ops, to whole chunks. A size
// too small for that still gets one element (per chunk), so the smallest case
// may exceed the requested size.
int64_t collectiveElements(api::CollectiveOp op, api::DType dtype, int64_t bytes, int ranks);

// Every case, in spec order of op, then dtype, then size. A size whose
// rounding repeats the previous case of its op and dtype is dropped.
// Throws std::invalid_argument on ranks < 1, minBytes < 1 or stepFactor < 2.
std::vector<CollectiveCase> planCollectives(const api::CollectivesSpec& spec, int ranks);

// nccl-tests' bus bandwidth factor: busbw = algbw * factor is the traffic per
// rank's link, comparable across ops and rank counts (nccl-tests'
// doc/PERFORMANCE.md). allreduce 2(n-1)/n; allgather, reducescatter, alltoall,
// scatter, gather (n-1)/n; broadcast, reduce, sendrecv 1.
double busbwFactor(api::CollectiveOp op, int ranks);

}  // namespace distbench::worker
