#include "distbench/worker/fabric/fabric_benchmark.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <chrono>

#include "distbench/api/rank_layout.h"
#include "distbench/api/resource_estimate.h"
#include "distbench/worker/comm/rendezvous.h"
#include "distbench/worker/comm/run_control.h"
#include "distbench/worker/common/progress_reporter.h"
#include "distbench/worker/fabric/compute_probe.h"
#include "distbench/worker/fabric/fabric_rounds.h"
#include "distbench/worker/fabric/fabric_wire.h"
#include "distbench/worker/fabric/node_name.h"

namespace distbench::worker {
namespace {

constexpr const char* kResultsKey = "fabric";

// Ranks mark progress after each probe sample, each round and the allreduce.
// The longest of those is a round: per size two directions of warm-up and
// measured transfers, each bounded by the peer timeout.
std::chrono::milliseconds progressWindowOf(const Rendezvous& rendezvous,
                                           const api::DistBenchmark& b) {
  const api::FabricSpec& f = b.spec.benchmark.fabric;
  const int64_t transfers = 2 * static_cast<int64_t>(f.messageBytes.size()) *
                            (std::max(0, f.warmupSamples) + std::max(1, f.samplesPerPair));
  const int64_t other = std::max(f.computeProbeSamples, f.allreduceIterations) + 1;
  return rendezvous.timeouts().peer * (std::max(transfers, other) + 2);
}

std::vector<double> timeAllreduce(ProcessGroup& group, const api::FabricSpec& f) {
  const int64_t elements = std::max<int64_t>(1, f.allreduceBytes / 4);
  at::Tensor buffer = at::ones(
      {elements}, at::TensorOptions().dtype(at::kFloat).device(group.device().torchDevice()));
  group.barrier();
  group.allreduceSum(buffer).wait();  // warm-up: connections, buffers
  std::vector<double> seconds;
  for (int i = 0; i < f.allreduceIterations; ++i) {
    group.barrier();
    const auto start = std::chrono::steady_clock::now();
    group.allreduceSum(buffer).wait();
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return seconds;
}

}  // namespace

void runFabricRank(Rendezvous& rendezvous, const api::DistBenchmark& benchmark,
                   const ComputeDevice& device, bool progressLines) {
  const api::FabricSpec& f = benchmark.spec.benchmark.fabric;
  StoreHeartbeat heartbeat(rendezvous);
  RunControl control(rendezvous, progressWindowOf(rendezvous, benchmark));
  ProcessGroup& group = rendezvous.trainers();
  const int n = group.size();
  const int me = group.rank();

  FabricRankResult result;
  result.node = nodeNameFromEnvironment();
  // One node at a time, so that a node's probe measures the node, not its
  // neighbours on a shared machine; and sample by sample in turn (node 0's
  // first, node 1's first, ...), so that a burst of outside load lands on
  // one sample of several nodes rather than on every sample of one.
  ComputeProbe probe(device, api::fabricProbeSide(f, benchmark.spec.runtime.device));
  report::FabricPlanOptions planOptions;
  planOptions.allPairsUpTo = f.allPairsUpTo;
  planOptions.thresholdPercent = f.thresholdPercent;
  planOptions.seed = static_cast<uint64_t>(benchmark.spec.benchmark.seed);
  PairTransferPlan transfers{f.messageBytes, f.warmupSamples, f.samplesPerPair};
  ProgressReporter progress(
      progressLines, "steps",
      1 + f.computeProbeSamples + fabricRoundsAtMost(n, transfers, planOptions) + 1);
  progress.advance(0);
  for (int i = 0; i < 1 + f.computeProbeSamples; ++i) {  // the first, unmeasured
    for (int turn = 0; turn < n; ++turn) {
      if (turn == me) {
        const double seconds = probe.sample(rendezvous.timeouts().peer);
        if (i > 0) result.probeSeconds.push_back(seconds);
      }
      group.barrier();
    }
    control.checkStillOn();
    progress.advance();
  }

  report::FabricMeasurements sofar;
  for (int t = 0; t < n; ++t) {
    report::FabricNode node;
    node.rank = api::trainerRank(benchmark.spec.topology, t);
    node.name = "trainer" + std::to_string(t);
    sofar.nodes.push_back(node);
  }
  result.received = runFabricRounds(group, transfers, planOptions, sofar, [&] {
    control.checkStillOn();
    progress.advance();
  });

  result.allreduceSeconds = timeAllreduce(group, f);
  progress.finish();
  control.publish(kResultsKey, encodeFabricResult(result));
  control.finish();
}

report::FabricMeasurements runFabricMaster(Rendezvous& rendezvous,
                                           const api::DistBenchmark& benchmark) {
  const WorkerIdentity& id = rendezvous.identity();
  const api::FabricSpec& f = benchmark.spec.benchmark.fabric;
  RunControl control(rendezvous, progressWindowOf(rendezvous, benchmark));
  FabricAssembly how;
  std::vector<FabricRankResult> perTrainer;
  for (int t = 0; t < id.numTrainers; ++t) {
    const int rank = api::trainerRank(id.topology(), t);
    const std::string who = describeRank(0, id.numTrainers, rank);
    const std::vector<double> values = control.collect(kResultsKey, t);
    try {
      perTrainer.push_back(decodeFabricResult(values, who));
    } catch (const std::runtime_error& e) {
      control.abort(e.what());
    }
    how.labels.push_back("trainer" + std::to_string(t));
    how.ranks.push_back(rank);
  }
  control.awaitFinished();
  const int side = api::fabricProbeSide(f, benchmark.spec.runtime.device);
  how.probeFlop = gemmFlop(side);
  how.probeDevice = api::toString(benchmark.spec.runtime.device);
  how.allreduceBytes = std::max<int64_t>(1, f.allreduceBytes / 4) * 4;
  return assembleFabric(perTrainer, how);
}

}  // namespace distbench::worker
