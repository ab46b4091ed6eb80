// What a training rank records per iteration, the same families for a
// HybridDDPRPC trainer and a DDP trainer (docs/metrics.md); only their help
// texts say which. The kinds' own types build on it: HybridTrainerMetrics
// (hybrid/hybrid_metrics.h) and DdpTrainerMetrics (ddp/ddp_metrics.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace distbench::worker {

class MetricsEndpoint;

class TrainingMetrics {
 public:
  // Registers the families; observations need a series selected first.
  TrainingMetrics(const MetricsEndpoint& endpoint, const std::string& forwardHelp,
                  const std::string& optimizerHelp);
  ~TrainingMetrics();
  TrainingMetrics(const TrainingMetrics&) = delete;
  TrainingMetrics& operator=(const TrainingMetrics&) = delete;

  void observeIteration(double seconds);
  void observeExamples(int64_t examples);
  void observeForward(double seconds);
  void observeBackward(double seconds);
  void observeAllreduce(double seconds, int64_t bytes);  // one bucket, launch to done
  void observeAllreduceWait(double seconds);             // exposed after backward
  void observeOptimizerStep(double seconds);

 protected:
  // The observations above go to the series with these extra labels.
  void selectSeries(const std::map<std::string, std::string>& extraLabels);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace distbench::worker
