#include "distbench/worker/hybrid/ps_stats_store.h"

#include <cstring>
#include <string>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <vector>

namespace distbench::worker {
namespace {

std::string keyOf(int parameterServer) {
  return "distbench/hybrid/ps/" + std::to_string(parameterServer) + "/stats";
}

}  // namespace

void publishParameterServerStats(c10d::Store& store, int parameterServer,
                                 const ParameterServerStats& stats) {
  const std::vector<double> values = stats.flatten();
  std::vector<uint8_t> bytes(values.size() * sizeof(double));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  store.set(keyOf(parameterServer), bytes);
}

ParameterServerStats readParameterServerStats(c10d::Store& store, int parameterServer) {
  const std::vector<uint8_t> bytes = store.get(keyOf(parameterServer));
  std::vector<double> values(bytes.size() / sizeof(double));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(double));
  return ParameterServerStats::unflatten(values);
}

}  // namespace distbench::worker
