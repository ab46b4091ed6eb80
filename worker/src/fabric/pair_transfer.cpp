#include "distbench/worker/fabric/pair_transfer.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <chrono>

namespace distbench::worker {
namespace {

constexpr int kTokenTag = 11;
constexpr int kMessageTag = 12;

struct Buffers {
  at::Tensor token;
  at::Tensor message;  // the largest size; smaller sizes use its front
};

Buffers allocate(const ProcessGroup& group, const PairTransferPlan& plan) {
  int64_t largest = 1;
  for (int64_t bytes : plan.messageBytes) largest = std::max(largest, bytes);
  const auto options = at::TensorOptions().dtype(at::kByte).device(group.device().torchDevice());
  return {at::zeros({1}, options), at::zeros({largest}, options)};
}

// One transfer toward the receiver; the receiver's seconds, else 0.
double transfer(ProcessGroup& group, int peer, bool receiving, const Buffers& b, int64_t bytes) {
  at::Tensor message = b.message.narrow(0, 0, bytes);
  if (receiving) {
    // The token before the receive: NCCL runs a rank's point-to-point ops in
    // the order posted, and the sender's message waits on the token.
    const auto start = std::chrono::steady_clock::now();
    PendingOp ready = group.send(b.token, peer, kTokenTag);
    PendingOp arriving = group.recv(message, peer, kMessageTag);
    ready.wait();
    arriving.wait();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  group.recv(b.token, peer, kTokenTag).wait();
  group.send(message, peer, kMessageTag).wait();
  return 0;
}

}  // namespace

std::vector<std::vector<double>> measurePair(ProcessGroup& group, int peer,
                                             const PairTransferPlan& plan) {
  const Buffers buffers = allocate(group, plan);
  const bool lower = group.rank() < peer;
  std::vector<std::vector<double>> received;
  for (int64_t bytes : plan.messageBytes) {
    std::vector<double> samples;
    // The lower rank sends first, then the higher one.
    for (bool receiving : {!lower, lower}) {
      for (int i = 0; i < plan.warmupSamples + plan.samplesPerPair; ++i) {
        const double seconds = transfer(group, peer, receiving, buffers, bytes);
        if (receiving && i >= plan.warmupSamples) samples.push_back(seconds);
      }
    }
    received.push_back(std::move(samples));
  }
  return received;
}

}  // namespace distbench::worker
