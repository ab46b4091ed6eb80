#include "distbench/worker/collectives/collective_plan.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace distbench::worker {

bool operator==(const CollectiveCase& a, const CollectiveCase& b) {
  return a.op == b.op && a.dtype == b.dtype && a.bytes == b.bytes && a.elements == b.elements;
}

bool isChunked(api::CollectiveOp op) {
  switch (op) {
    case api::CollectiveOp::AllGather:
    case api::CollectiveOp::Gather:
    case api::CollectiveOp::AllToAll:
    case api::CollectiveOp::ReduceScatter:
    case api::CollectiveOp::Scatter:
      return true;
    case api::CollectiveOp::AllReduce:
    case api::CollectiveOp::Broadcast:
    case api::CollectiveOp::Reduce:
    case api::CollectiveOp::SendRecv:
      return false;
  }
  return false;
}

int64_t collectiveElements(api::CollectiveOp op, api::DType dtype, int64_t bytes, int ranks) {
  const int64_t chunks = isChunked(op) ? ranks : 1;
  const int64_t perChunk = bytes / api::dtypeSize(dtype) / chunks;
  return std::max<int64_t>(perChunk, 1) * chunks;
}

std::vector<CollectiveCase> planCollectives(const api::CollectivesSpec& spec, int ranks) {
  if (ranks < 1) throw std::invalid_argument("collectives need at least 1 rank");
  if (spec.minBytes < 1) throw std::invalid_argument("collectives: minBytes must be at least 1");
  if (spec.stepFactor < 2)
    throw std::invalid_argument("collectives: stepFactor must be at least 2");
  std::vector<CollectiveCase> plan;
  for (api::CollectiveOp op : spec.ops) {
    for (api::DType dtype : spec.dtypes) {
      int64_t previous = -1;
      // maxBytes is at most 4 GiB (validation), so bytes * stepFactor cannot
      // overflow before the loop ends; the division guards unvalidated specs.
      for (int64_t bytes = spec.minBytes; bytes <= spec.maxBytes;) {
        const int64_t elements = collectiveElements(op, dtype, bytes, ranks);
        if (elements != previous) {
          plan.push_back({op, dtype, elements * api::dtypeSize(dtype), elements});
          previous = elements;
        }
        if (bytes > spec.maxBytes / spec.stepFactor) break;
        bytes *= spec.stepFactor;
      }
    }
  }
  return plan;
}

double busbwFactor(api::CollectiveOp op, int ranks) {
  const double n = ranks;
  switch (op) {
    case api::CollectiveOp::AllReduce:
      return 2.0 * (n - 1) / n;
    case api::CollectiveOp::AllGather:
    case api::CollectiveOp::ReduceScatter:
    case api::CollectiveOp::AllToAll:
    case api::CollectiveOp::Scatter:
    case api::CollectiveOp::Gather:
      return (n - 1) / n;
    case api::CollectiveOp::Broadcast:
    case api::CollectiveOp::Reduce:
    case api::CollectiveOp::SendRecv:
      return 1.0;
  }
  return 1.0;
}

}  // namespace distbench::worker
