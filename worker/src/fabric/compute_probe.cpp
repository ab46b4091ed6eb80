#include "distbench/worker/fabric/compute_probe.h"

#include <ATen/ATen.h>

#include <stdexcept>

namespace distbench::worker {

double gemmFlop(int n) {
  const double side = n;
  return 2 * side * side * side;
}

ComputeProbe::ComputeProbe(const ComputeDevice& device, int n) : device_(device) {
  if (n < 1) {
    throw std::invalid_argument("compute probe: size must be >= 1, got " + std::to_string(n));
  }
  what_ = "the compute probe (" + std::to_string(n) + "x" + std::to_string(n) + " GEMM on " +
          device.name() + ")";
  const auto options = at::TensorOptions().dtype(at::kFloat).device(device.torchDevice());
  // Fixed inputs: the same work on every node, whatever the seed.
  a_ = at::full({n, n}, 0.5, options);
  b_ = at::full({n, n}, 0.25, options);
  c_ = at::empty({n, n}, options);
  device_.synchronize(std::chrono::seconds(60), what_);
}

double ComputeProbe::sample(std::chrono::milliseconds timeout) {
  const auto start = std::chrono::steady_clock::now();
  at::mm_out(c_, a_, b_);
  device_.synchronize(timeout, what_);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::vector<double> runComputeProbe(const ComputeDevice& device, int n, int warmup, int samples,
                                    std::chrono::milliseconds timeout) {
  if (samples < 1) {
    throw std::invalid_argument("compute probe: samples must be >= 1, got " +
                                std::to_string(samples));
  }
  ComputeProbe probe(device, n);
  for (int i = 0; i < warmup; ++i) probe.sample(timeout);
  std::vector<double> seconds;
  for (int i = 0; i < samples; ++i) seconds.push_back(probe.sample(timeout));
  return seconds;
}

}  // namespace distbench::worker
