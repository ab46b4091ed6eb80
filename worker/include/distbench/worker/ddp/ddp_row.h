// One row of the DDP sweep on one rank: the seed's benchmark_process_group.
// A freshly seeded model (seed + rank, so replicas differ until DDP's
// broadcast), one fixed random batch reused every iteration, SGD with
// momentum and weight decay, warm-up iterations dropped. Each iteration is
// timed from forward to the end of the optimizer step, and split into
// phases, on the rank's device: on a GPU every phase ends on a CUDA event
// (gpu/step_clock.h), and the iteration ends when the device has finished
// its optimizer step.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "distbench/api/benchmark_spec.h"

namespace distbench::worker {

class ComputeDevice;
class ProcessGroup;
class TrainingMetrics;
struct BucketTiming;

struct DdpPhaseSamples {
  std::vector<double> iteration;      // forward + loss + backward + allreduce wait + step
  std::vector<double> forward;        // forward and loss
  std::vector<double> backward;       // backward, with the allreduces it overlaps
  std::vector<double> allreduceWait;  // allreduce left after backward
  std::vector<double> optimizerStep;

  // Flat, for handing to the master: the five series back to back.
  std::vector<double> flatten() const;
  static DdpPhaseSamples unflatten(const std::vector<double>& flat, int iterations);
};

// Gets the bucketer's per-bucket timeline after every measured iteration.
using BucketTimelineSink = std::function<void(const std::vector<BucketTiming>&)>;

// The model, its batch and its gradient buckets live on `device`. `group`
// null: the `no ddp` baseline, the plain model. Otherwise the model's
// gradients go through the project's DDP bucketer over `group` (whose
// device is `device`).
// `betweenIterations`, if set, runs untimed before every iteration: a row
// can run for minutes with no peer to notice a failure elsewhere, so it is
// where the caller checks whether the run was called off. `buckets`, if set
// (DDP rows only), runs untimed after every measured iteration.
DdpPhaseSamples runDdpRow(const api::DistBenchmarkSpec& spec, const std::string& model, int rank,
                          const ComputeDevice& device, ProcessGroup* group,
                          TrainingMetrics* metrics,
                          const std::function<void()>& betweenIterations = {},
                          const BucketTimelineSink& buckets = {});

}  // namespace distbench::worker
