// Prometheus metrics of one rank (docs/metrics.md). Every series carries the
// labels benchmark, role and rank. Histograms are in seconds.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace distbench::worker {

class WorkerMetrics {
 public:
  // port 0: record, but serve nothing. Throws if the port cannot be bound.
  // `kind` (HybridDDPRPC, DDP, Collectives) decides which families exist.
  WorkerMetrics(const std::string& benchmark, const std::string& kind, const std::string& role,
                int rank, int port);
  ~WorkerMetrics();
  WorkerMetrics(const WorkerMetrics&) = delete;
  WorkerMetrics& operator=(const WorkerMetrics&) = delete;

  // DDP sweeps: the training histograms below record into the series of
  // this model and world size (labels model, world_size) until the next call.
  void selectTrainingSeries(const std::string& model, int worldSize);

  // Trainer.
  void observeEpoch(double seconds, int64_t examples, bool warmup);
  void observeIteration(double seconds);
  void observeExamples(int64_t examples);  // DDP: per iteration, warm-up included
  void observeForward(double seconds);
  void observeBackward(double seconds);
  void observeAllreduce(double seconds, int64_t bytes);  // one bucket, launch to done
  void observeAllreduceWait(double seconds);             // exposed after backward
  void observeOptimizerStep(double seconds);
  // op: lookup | push_grad | step; one call to one parameter server.
  void observeRpc(const std::string& op, double seconds, int64_t bytesSent, int64_t bytesReceived);
  // Collectives: one measured op of `bytes` (nccl-tests' size) on this rank.
  void observeCollective(const std::string& op, const std::string& dtype, int64_t bytes,
                         double seconds);
  // Parameter server: time to serve one request of `op`.
  void observeService(const std::string& op, double seconds);

  // Where /metrics is served ("" when not).
  std::string endpoint() const;
  // Keeps serving for `seconds` so a scraper sees the final samples.
  void linger(int seconds) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace distbench::worker
