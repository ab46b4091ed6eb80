// What HybridDDPRPC's ranks record (docs/metrics.md): a trainer's training
// families plus its epochs and parameter-server calls; a parameter server's
// service times. The master records nothing but build info.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "distbench/worker/common/training_metrics.h"

namespace distbench::worker {

class MetricsEndpoint;

class HybridTrainerMetrics : public TrainingMetrics {
 public:
  explicit HybridTrainerMetrics(const MetricsEndpoint& endpoint);
  ~HybridTrainerMetrics();

  void observeEpoch(double seconds, int64_t examples, bool warmup);
  // op: lookup | push_grad | step; one call to one parameter server.
  void observeRpc(const std::string& op, double seconds, int64_t bytesSent, int64_t bytesReceived);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class ParameterServerMetrics {
 public:
  explicit ParameterServerMetrics(const MetricsEndpoint& endpoint);
  ~ParameterServerMetrics();
  ParameterServerMetrics(const ParameterServerMetrics&) = delete;
  ParameterServerMetrics& operator=(const ParameterServerMetrics&) = delete;

  // Time to serve one request of `op`. Called from every peer's thread.
  void observeService(const std::string& op, double seconds);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace distbench::worker
