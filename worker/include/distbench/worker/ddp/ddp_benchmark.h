// The DDP kind's two roles. Trainers walk the sweep together: for every
// model and row, the row's ranks form a fresh group (spec.runtime's backend,
// on their device) and train while the others wait; every rank hands its samples to the master through the
// store. The master prints each row as it completes and returns everything
// for the report. Rows can take longer than any peer timeout (a ResNeXt-101
// on a CPU), so liveness comes from RunControl's heartbeats, not from Gloo.
#pragma once

#include <functional>
#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "distbench/worker/ddp/ddp_results.h"

namespace distbench::worker {

class ComputeDevice;
class Rendezvous;
class DdpTrainerMetrics;

// `device`: this trainer's, which its row groups use too. `progressLines`:
// iterations done of the rows this trainer is in (progress_reporter.h).
void runDdpTrainer(Rendezvous& rendezvous, const api::DistBenchmark& benchmark,
                   const ComputeDevice& device, DdpTrainerMetrics& metrics,
                   bool progressLines = false);

struct DdpMasterOutput {
  std::vector<DdpModelResult> models;
  std::vector<int64_t> parameterCounts;  // per model, as trainer 0 built it
};

// `print` gets the table piece by piece, as rows complete.
DdpMasterOutput runDdpMaster(Rendezvous& rendezvous, const api::DistBenchmark& benchmark,
                             const std::function<void(const std::string&)>& print);

}  // namespace distbench::worker
