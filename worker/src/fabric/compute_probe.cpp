#include "distbench/worker/fabric/compute_probe.h"

#include <ATen/ATen.h>

#include <stdexcept>
#include <string>

namespace distbench::worker {

double gemmFlop(int n) {
  const double side = n;
  return 2 * side * side * side;
}

std::vector<double> runComputeProbe(const ComputeDevice& device, int n, int warmup, int samples,
                                    std::chrono::milliseconds timeout) {
  if (n < 1)
    throw std::invalid_argument("compute probe: size must be >= 1, got " + std::to_string(n));
  if (samples < 1) {
    throw std::invalid_argument("compute probe: samples must be >= 1, got " +
                                std::to_string(samples));
  }
  const auto options = at::TensorOptions().dtype(at::kFloat).device(device.torchDevice());
  // Fixed inputs: the same work on every node, whatever the seed.
  const at::Tensor a = at::full({n, n}, 0.5, options);
  const at::Tensor b = at::full({n, n}, 0.25, options);
  at::Tensor c = at::empty({n, n}, options);
  const std::string what = "the compute probe (" + std::to_string(n) + "x" + std::to_string(n) +
                           " GEMM on " + device.name() + ")";
  for (int i = 0; i < warmup; ++i) at::mm_out(c, a, b);
  device.synchronize(timeout, what);
  std::vector<double> seconds;
  seconds.reserve(static_cast<size_t>(samples));
  for (int i = 0; i < samples; ++i) {
    const auto start = std::chrono::steady_clock::now();
    at::mm_out(c, a, b);
    device.synchronize(timeout, what);
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return seconds;
}

}  // namespace distbench::worker
