// A DDP trainer's metrics: the training families, one series per model and
// world size of the sweep (labels model, world_size), so a dashboard never
// mixes a 1-rank and an 8-rank iteration.
#pragma once

#include <string>

#include "distbench/worker/common/training_metrics.h"

namespace distbench::worker {

class DdpTrainerMetrics : public TrainingMetrics {
 public:
  explicit DdpTrainerMetrics(const MetricsEndpoint& endpoint)
      : TrainingMetrics(endpoint, "Forward pass and loss.", "SGD step (momentum, weight decay).") {}

  // Observations go to this row's series until the next call; world size 0
  // is the `no ddp` row.
  void selectRow(const std::string& model, int worldSize) {
    selectSeries({{"model", model}, {"world_size", std::to_string(worldSize)}});
  }
};

}  // namespace distbench::worker
