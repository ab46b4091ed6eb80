// What a Collectives rank records (docs/metrics.md): each measured op.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace distbench::worker {

class MetricsEndpoint;

class CollectivesRankMetrics {
 public:
  explicit CollectivesRankMetrics(const MetricsEndpoint& endpoint);
  ~CollectivesRankMetrics();
  CollectivesRankMetrics(const CollectivesRankMetrics&) = delete;
  CollectivesRankMetrics& operator=(const CollectivesRankMetrics&) = delete;

  // One measured op of `bytes` (nccl-tests' size) on this rank.
  void observeCollective(const std::string& op, const std::string& dtype, int64_t bytes,
                         double seconds);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace distbench::worker
