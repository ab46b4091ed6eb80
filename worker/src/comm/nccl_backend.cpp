// makeNcclBackend where LibTorch has CUDA: c10d's ProcessGroupNCCL.
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>

#include "distbench/worker/comm/c10d_backends.h"

namespace distbench::worker {

BackendHandle makeNcclBackend(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                              std::chrono::milliseconds timeout) {
  auto options = c10d::ProcessGroupNCCL::Options::create();
  // The watchdog aborts a collective that takes longer, so a dead peer ends
  // the rank instead of holding its GPU for good.
  options->timeout = timeout;
  auto nccl = c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, size, options);
  c10d::ProcessGroupNCCL* raw = nccl.get();
  auto exchange = [raw](at::Tensor send, int dst, at::Tensor recv, int src, int tag) {
    std::vector<at::Tensor> sends{std::move(send)}, recvs{std::move(recv)};
    raw->startCoalescing();
    raw->recv(recvs, src, tag);
    raw->send(sends, dst, tag);
    return raw->endCoalescing();
  };
  return {nccl, [raw] { raw->shutdown(); }, exchange};
}

std::string ncclBackendUnavailable() { return ""; }

}  // namespace distbench::worker
