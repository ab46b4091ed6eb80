#include "distbench/worker/collectives/collective_runner.h"

#include <ATen/ATen.h>

#include <iomanip>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "distbench/worker/gpu/step_clock.h"

namespace distbench::worker {
namespace {

// sendrecv's ring payloads, rank -> rank + 1. The value is the one this tag
// had when it lived with the parameter-server tags (101..104), so a trace
// reads the same; on the `trainers` group nothing else uses tags anyway.
constexpr int kTagSendRecv = 105;

using api::CollectiveOp;

constexpr int kRoot = 0;

at::ScalarType scalarType(api::DType dtype) {
  switch (dtype) {
    case api::DType::Float32:
      return at::kFloat;
    case api::DType::Float64:
      return at::kDouble;
    case api::DType::Float16:
      return at::kHalf;
    case api::DType::BFloat16:
      return at::kBFloat16;
    case api::DType::Int32:
      return at::kInt;
    case api::DType::Int64:
      return at::kLong;
  }
  throw std::invalid_argument("unknown dtype");
}

std::string describe(const CollectiveCase& c) {
  return std::string(api::toString(c.op)) + " " + api::toString(c.dtype) + " of " +
         std::to_string(c.bytes) + " B";
}

// (i % 7) for i in [0, n), as int64: the index part of every input value.
at::Tensor indexPattern(int64_t begin, int64_t n) {
  return at::remainder(at::arange(begin, begin + n, at::kLong), 7);
}

// Every expected value is an input value or a sum of them: n * (i % 7) plus
// the sum of (rank + 1) over ranks.
at::Tensor sumOverRanks(int64_t begin, int64_t n, int ranks) {
  const int64_t rankTerm = static_cast<int64_t>(ranks) * (ranks + 1) / 2;
  return indexPattern(begin, n) * ranks + rankTerm;
}

// Chunk j of a gathered buffer: rank j's elements [offset, offset + chunk).
at::Tensor perSourceChunks(int ranks, int64_t chunk, int64_t offset) {
  std::vector<at::Tensor> chunks;
  for (int j = 0; j < ranks; ++j) chunks.push_back(indexPattern(offset, chunk) + (j + 1));
  return at::cat(chunks);
}

// One case on this rank: its buffers, allocated once on the group's device,
// and the op on them.
class CaseRun {
 public:
  CaseRun(const CollectiveCase& c, ProcessGroup& group)
      : c_(c),
        group_(group),
        rank_(group.rank()),
        ranks_(group.size()),
        device_(group.device().torchDevice()) {
    const int64_t all = c.elements;
    const int64_t chunk = isChunked(c.op) ? all / ranks_ : all;
    const bool root = rank_ == kRoot;
    switch (c.op) {
      case CollectiveOp::AllReduce:
        in_ = input(all);
        out_ = in_;
        break;
      case CollectiveOp::Broadcast:
        in_ = root ? input(all) : sentinel(all);
        out_ = in_;
        break;
      case CollectiveOp::Reduce:
        in_ = input(all);
        if (root) out_ = in_;
        break;
      case CollectiveOp::AllGather:
        in_ = input(chunk);
        out_ = sentinel(all);
        break;
      case CollectiveOp::Gather:
        in_ = input(chunk);
        if (root) {
          out_ = sentinel(all);
          outChunks_ = out_.chunk(ranks_);
        }
        break;
      case CollectiveOp::Scatter:
        if (root) {
          in_ = input(all);
          inChunks_ = in_.chunk(ranks_);
        }
        out_ = sentinel(chunk);
        break;
      case CollectiveOp::ReduceScatter:
        in_ = input(all);
        inChunks_ = in_.chunk(ranks_);  // the emulation's local slice
        out_ = sentinel(chunk);
        break;
      case CollectiveOp::AllToAll:
      case CollectiveOp::SendRecv:
        in_ = input(all);
        out_ = sentinel(all);
        break;
    }
  }

  // The timed part: issue the op and wait until it completes on this rank;
  // on a GPU, until the current stream is ordered after it (the caller's
  // closing CUDA event then marks its end without a host round trip).
  void runOnce() {
    switch (c_.op) {
      case CollectiveOp::AllReduce:
        group_.allreduceSum(in_).enqueueWait();
        break;
      case CollectiveOp::Broadcast:
        group_.broadcast(in_, kRoot).enqueueWait();
        break;
      case CollectiveOp::Reduce:
        group_.reduceSum(in_, kRoot).enqueueWait();
        break;
      case CollectiveOp::AllGather:
        group_.allgather(in_, out_).enqueueWait();
        break;
      case CollectiveOp::Gather:
        group_.gather(in_, outChunks_, kRoot).enqueueWait();
        break;
      case CollectiveOp::Scatter:
        group_.scatter(inChunks_, out_, kRoot).enqueueWait();
        break;
      case CollectiveOp::ReduceScatter:
        if (group_.hasNativeReduceScatter()) {
          group_.reduceScatterSum(in_, out_).enqueueWait();
        } else {
          // Twice a real reduce-scatter's traffic (allreduce = reduce-scatter
          // + allgather); the report says so through implementationOf.
          group_.allreduceSum(in_).enqueueWait();
          out_.copy_(inChunks_[rank_]);
        }
        break;
      case CollectiveOp::AllToAll:
        group_.alltoall(in_, out_).enqueueWait();
        break;
      case CollectiveOp::SendRecv:
        sendRecv();
        break;
    }
  }

  // This rank's result buffer; undefined where the op leaves it none.
  const at::Tensor& output() const { return out_; }

 private:
  at::Tensor input(int64_t elements) const {
    return collectiveInput(c_, rank_, elements).to(device_);
  }

  // No expected value is negative, so -1 marks an element nothing wrote.
  at::Tensor sentinel(int64_t elements) const {
    return at::full({elements}, -1,
                    at::TensorOptions().dtype(scalarType(c_.dtype)).device(device_));
  }

  // nccl-tests' sendrecv: a ring where every rank sends to the next while
  // receiving from the previous, both at once (process_group.h).
  void sendRecv() {
    if (ranks_ == 1) {
      out_.copy_(in_);  // Gloo has no pair to itself; nccl-tests copies too
      return;
    }
    const int next = (rank_ + 1) % ranks_;
    const int previous = (rank_ - 1 + ranks_) % ranks_;
    for (PendingOp& op : group_.exchange(in_, next, out_, previous, kTagSendRecv)) {
      op.enqueueWait();
    }
  }

  const CollectiveCase& c_;
  ProcessGroup& group_;
  const int rank_;
  const int ranks_;
  const c10::Device device_;
  at::Tensor in_, out_;
  std::vector<at::Tensor> inChunks_, outChunks_;
};

// After a case's checked iteration: every rank learns which ranks saw a
// wrong result, so all of them fail together instead of the rest waiting
// out the timeout at the next barrier.
void agreeOnCheck(const CollectiveCase& c, ProcessGroup& group, const std::string& localError) {
  at::Tensor failed =
      at::zeros({group.size()}, at::TensorOptions(at::kInt).device(group.device().torchDevice()));
  if (!localError.empty()) failed[group.rank()].fill_(1);
  group.allreduceSum(failed).wait();
  if (!localError.empty()) throw std::runtime_error(localError);
  std::string ranks;
  for (int r = 0; r < group.size(); ++r) {
    if (failed[r].item<int>() != 0) ranks += (ranks.empty() ? "" : ", ") + group.peerName(r);
  }
  if (!ranks.empty()) {
    throw std::runtime_error(describe(c) + ": wrong result on " + ranks);
  }
}

}  // namespace

std::string implementationOf(api::CollectiveOp op, api::Backend backend, api::Device device) {
  if (backend == api::Backend::NCCL) {
    switch (op) {
      case CollectiveOp::AllReduce:
        return "nccl allreduce";
      case CollectiveOp::AllGather:
        return "nccl allgather";
      case CollectiveOp::Broadcast:
        return "nccl broadcast";
      case CollectiveOp::Reduce:
        return "nccl reduce";
      // c10d builds these two from NCCL's send/recv.
      case CollectiveOp::Scatter:
        return "nccl scatter (c10d: send/recv from the root)";
      case CollectiveOp::Gather:
        return "nccl gather (c10d: send/recv to the root)";
      case CollectiveOp::ReduceScatter:
        return "nccl reduce_scatter";  // the tensor form, in place
      case CollectiveOp::AllToAll:
        return "nccl alltoall (c10d: grouped send/recv)";
      case CollectiveOp::SendRecv:
        return "nccl send/recv ring (to rank + 1, from rank - 1)";
    }
    return "";
  }
  const std::string staged =
      device == api::Device::CUDA ? " on CUDA tensors (staged through host memory)" : "";
  switch (op) {
    case CollectiveOp::AllReduce:
      return "gloo allreduce" + staged;
    case CollectiveOp::AllGather:
      return "gloo allgather" + staged;
    case CollectiveOp::Broadcast:
      return "gloo broadcast" + staged;
    case CollectiveOp::Reduce:
      return "gloo reduce" + staged;
    case CollectiveOp::Scatter:
      return "gloo scatter" + staged;
    case CollectiveOp::Gather:
      return "gloo gather" + staged;
    case CollectiveOp::ReduceScatter:
      return "allreduce + local slice (c10d's Gloo has no reduce_scatter)" + staged;
    case CollectiveOp::AllToAll:
      return "gloo alltoall_base" + staged;
    case CollectiveOp::SendRecv:
      return "gloo send/recv ring (to rank + 1, from rank - 1)" +
             (staged.empty() ? "" : std::string(" through host copies"));
  }
  return "";
}

at::Tensor collectiveInput(const CollectiveCase& c, int rank, int64_t elements) {
  return (indexPattern(0, elements) + (rank + 1)).to(scalarType(c.dtype));
}

at::Tensor expectedCollectiveOutput(const CollectiveCase& c, int rank, int ranks) {
  const int64_t all = c.elements;
  const int64_t chunk = isChunked(c.op) ? all / ranks : all;
  const bool root = rank == kRoot;
  at::Tensor expected;
  switch (c.op) {
    case CollectiveOp::AllReduce:
      expected = sumOverRanks(0, all, ranks);
      break;
    case CollectiveOp::Reduce:
      if (root) expected = sumOverRanks(0, all, ranks);
      break;
    case CollectiveOp::Broadcast:
      expected = indexPattern(0, all) + (kRoot + 1);
      break;
    case CollectiveOp::AllGather:
      expected = perSourceChunks(ranks, chunk, 0);
      break;
    case CollectiveOp::Gather:
      if (root) expected = perSourceChunks(ranks, chunk, 0);
      break;
    case CollectiveOp::Scatter:
      expected = indexPattern(rank * chunk, chunk) + (kRoot + 1);
      break;
    case CollectiveOp::ReduceScatter:
      expected = sumOverRanks(rank * chunk, chunk, ranks);
      break;
    case CollectiveOp::AllToAll:
      expected = perSourceChunks(ranks, chunk, rank * chunk);
      break;
    case CollectiveOp::SendRecv:
      expected = indexPattern(0, all) + ((rank - 1 + ranks) % ranks + 1);
      break;
  }
  return expected.defined() ? expected.to(at::kDouble) : expected;
}

void checkCollectiveOutput(const CollectiveCase& c, int rank, int ranks, const at::Tensor& output) {
  at::Tensor expected = expectedCollectiveOutput(c, rank, ranks);
  if (!expected.defined()) return;
  const std::string where =
      describe(c) + " on rank " + std::to_string(rank) + " of " + std::to_string(ranks) + ": ";
  if (!output.defined() || output.numel() != expected.numel()) {
    throw std::runtime_error(where + "result has " +
                             std::to_string(output.defined() ? output.numel() : 0) +
                             " elements, expected " + std::to_string(expected.numel()));
  }
  // float64 holds every dtype's small integers exactly. Compared where the
  // result is: only the first wrong index and its values cross to the host.
  expected = expected.to(output.device());
  const at::Tensor got = output.reshape({-1}).to(at::kDouble);
  const at::Tensor wrong = at::ne(got, expected).nonzero();
  if (wrong.numel() == 0) return;
  const int64_t index = wrong[0][0].item<int64_t>();
  std::ostringstream message;
  // Enough digits to tell any two doubles apart, so big garbage prints whole.
  message << std::setprecision(std::numeric_limits<double>::max_digits10) << where << wrong.size(0)
          << " wrong elements, the first at index " << index << ": expected "
          << expected[index].item<double>() << ", got " << got[index].item<double>();
  throw std::runtime_error(message.str());
}

std::vector<std::vector<double>> runCollectives(const std::vector<CollectiveCase>& plan,
                                                const api::CollectivesSpec& spec,
                                                ProcessGroup& group,
                                                CollectivesRankMetrics* metrics,
                                                const std::function<void()>& betweenCases) {
  if (group.backend() == api::Backend::Gloo) {
    for (const auto& c : plan) {
      if (c.dtype == api::DType::BFloat16) {
        throw std::invalid_argument(describe(c) + ": Gloo cannot reduce bfloat16; it needs NCCL");
      }
    }
  }
  const int total = spec.warmupIterations + spec.iterations;
  const std::shared_ptr<StepClock> clock = group.device().newClock();
  std::vector<std::vector<double>> seconds;
  seconds.reserve(plan.size());
  for (const auto& c : plan) {
    if (betweenCases) betweenCases();
    CaseRun run(c, group);
    const std::string onDevice = "the device to finish " + describe(c);
    std::vector<double> measured;
    measured.reserve(spec.iterations);
    for (int iteration = 0; iteration < total; ++iteration) {
      group.barrier();  // everyone starts together; not part of the op
      clock->beginStep();
      const StepClock::Mark start = clock->mark();
      run.runOnce();
      const StepClock::Mark end = clock->mark();
      clock->settle(end, group.timeout(), onDevice);
      const double elapsed = clock->seconds(start, end);
      if (iteration == 0) {
        // Later iterations run on the previous results (in-place ops keep
        // summing); only this one has known inputs.
        std::string error;
        try {
          checkCollectiveOutput(c, group.rank(), group.size(), run.output());
        } catch (const std::runtime_error& e) {
          error = e.what();
        }
        agreeOnCheck(c, group, error);
      }
      if (iteration < spec.warmupIterations) continue;
      measured.push_back(elapsed);
      if (metrics) {
        metrics->observeCollective(api::toString(c.op), api::toString(c.dtype), c.bytes, elapsed);
      }
    }
    seconds.push_back(std::move(measured));
  }
  return seconds;
}

}  // namespace distbench::worker
