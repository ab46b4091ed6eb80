// What a Fabric trainer hands the master through the store (RunControl
// carries lists of doubles): its node name, its probe samples, the samples
// it received in each round, and its allreduce seconds; and the master's
// assembly of every trainer's into report::FabricMeasurements. Pure, so the
// format is tested without a run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "distbench/report/fabric.h"

namespace distbench::worker {

// The samples one trainer received from one sender at one size.
struct FabricReceived {
  int round = 0;
  int sender = 0;  // trainer index
  int64_t bytes = 0;
  std::vector<double> seconds;
};

struct FabricRankResult {
  std::string node;  // Kubernetes node name; "" outside a cluster
  std::vector<double> probeSeconds;
  std::vector<FabricReceived> received;
  std::vector<double> allreduceSeconds;
};

std::vector<double> encodeFabricResult(const FabricRankResult& r);
// Throws std::runtime_error naming `who` ("trainer2 (rank 3)") when `values`
// is not what encodeFabricResult writes.
FabricRankResult decodeFabricResult(const std::vector<double>& values, const std::string& who);

struct FabricAssembly {
  std::vector<std::string> labels;  // per trainer: "trainer0", ...
  std::vector<int> ranks;           // per trainer: its global rank
  double probeFlop = 0;
  std::string probeDevice = "cpu";
  int64_t allreduceBytes = 0;
};

// One measurement set from every trainer's result (index = trainer index):
// a pair and size once, aToB from what b received and bToA from what a
// did; the allreduce per iteration as its slowest trainer saw it. Throws
// std::runtime_error naming the trainers when a pair has only one
// direction, or trainers disagree on the number of allreduce iterations.
report::FabricMeasurements assembleFabric(const std::vector<FabricRankResult>& perTrainer,
                                          const FabricAssembly& how);

}  // namespace distbench::worker
