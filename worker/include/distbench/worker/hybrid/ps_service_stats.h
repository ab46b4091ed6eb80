// What a parameter server tells the master about its run, for the report's
// results.parameterServers (docs/report-schema.md#hybridddprpc): how long
// it took to serve each trainer request of the measured steps, per op, and
// the bytes those requests and their replies moved. The server records
// every request as it serves it; only summaries cross to the master (the
// store, at shutdown), so a long run costs the same few numbers.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "distbench/report/percentiles.h"
#include "distbench/worker/hybrid/wire.h"

namespace distbench::worker {

struct ParameterServerStats {
  // Seconds to serve one request (ServiceRecorder says which count);
  // nothing where no such request was measured.
  std::optional<report::Summary> lookup, pushGrad, step;
  // Wire bytes of the measured requests (received) and their replies
  // (sent), per training step.
  double bytesReceivedPerStep = 0;
  double bytesSentPerStep = 0;
  // Per measured step in order, the mean seconds to serve one of its
  // requests (every op): samples the report's interval can resample, where
  // the summaries above cannot be. A step nothing was measured for is absent.
  std::vector<double> serviceSamples;

  // For the store: a fixed number of doubles, then serviceSamples, and back
  // (throws std::runtime_error on fewer).
  std::vector<double> flatten() const;
  static ParameterServerStats unflatten(const std::vector<double>& flat);
};

// Collects one server's service times from all its peer threads.
class ServiceRecorder {
 public:
  // Steps are numbered from 0 across epochs by every trainer; the first
  // `warmupSteps` (warmupEpochs × batchesPerEpoch) are warm-up and not
  // counted. `measuredSteps` (epochs × batchesPerEpoch) divides the bytes.
  ServiceRecorder(int64_t warmupSteps, int64_t measuredSteps);

  // A served trainer request of `op` (lookup, push_grad or step; others are
  // ignored) for training step `step`, which took `seconds`, arrived in a
  // `bytesReceived` buffer and was answered with `bytesSent` (0: no reply).
  // Thread-safe.
  void record(Op op, int64_t step, double seconds, int64_t bytesReceived, int64_t bytesSent);

  ParameterServerStats stats() const;

 private:
  int64_t warmupSteps_;
  int64_t measuredSteps_;
  mutable std::mutex mutex_;
  std::vector<double> lookup_, pushGrad_, step_;
  std::vector<double> stepServiceSeconds_;  // per measured step, summed over its requests
  std::vector<int64_t> stepRequests_;
  int64_t bytesReceived_ = 0;
  int64_t bytesSent_ = 0;
};

}  // namespace distbench::worker
