// The /metrics endpoint of one rank (docs/metrics.md): a registry whose
// series all carry the labels benchmark, role and rank. What a rank records
// is a type of its own kind and role (TrainingMetrics, HybridTrainerMetrics,
// ParameterServerMetrics, CollectivesRankMetrics), registered here by the
// code of that role, so recording another kind's metrics does not compile.
// Histograms are in seconds.
#pragma once

#include <map>
#include <memory>
#include <string>

namespace prometheus {
class Registry;
}  // namespace prometheus

namespace distbench::worker {

class MetricsEndpoint {
 public:
  // port 0: record, but serve nothing. Else serve on address:port (address
  // "0.0.0.0": every interface). Throws if the port cannot be bound.
  MetricsEndpoint(const std::string& benchmark, const std::string& role, int rank, int port,
                  const std::string& address = "0.0.0.0");
  ~MetricsEndpoint();
  MetricsEndpoint(const MetricsEndpoint&) = delete;
  MetricsEndpoint& operator=(const MetricsEndpoint&) = delete;

  // Where /metrics is served ("" when not).
  std::string endpoint() const;
  // Keeps serving for `seconds` so a scraper sees the final samples.
  void linger(int seconds) const;

  // For the metric types' constructors.
  prometheus::Registry& registry() const;
  const std::map<std::string, std::string>& labels() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace distbench::worker
