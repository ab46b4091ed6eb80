#include "distbench/worker/ddp/ddp_benchmark.h"

#include <iostream>

#include "distbench/api/rank_layout.h"
#include "distbench/worker/comm/ddp_bucketer.h"
#include "distbench/worker/comm/process_group.h"
#include "distbench/worker/comm/rendezvous.h"
#include "distbench/worker/comm/run_control.h"
#include "distbench/worker/common/progress_reporter.h"
#include "distbench/worker/ddp/bucket_summary.h"
#include "distbench/worker/ddp/ddp_metrics.h"
#include "distbench/worker/ddp/ddp_row.h"
#include "distbench/worker/ddp/models/model_factory.h"

namespace distbench::worker {
namespace {

bool usesGpus(const api::DistBenchmark& b) { return b.spec.runtime.device == api::Device::CUDA; }

std::vector<SweepRow> sweepOf(const api::DistBenchmark& b) {
  return planDdpSweep(b.spec.topology.trainers, b.spec.benchmark.ddp.ranksPerMachine, usesGpus(b));
}

// Store keys and group names: unique per model and row.
std::string rowKey(size_t model, size_t row) {
  return "ddp/" + std::to_string(model) + "/" + std::to_string(row);
}
// A DDP row's per-bucket medians (bucket_summary.h), beside its samples.
std::string bucketsKey(size_t model, size_t row) { return rowKey(model, row) + "/buckets"; }

int64_t parameterCount(const std::string& model, int64_t numClasses) {
  int64_t n = 0;
  for (const auto& p : makeImageModel(model, numClasses)->parameters()) n += p.numel();
  return n;
}

}  // namespace

void runDdpTrainer(Rendezvous& rendezvous, const api::DistBenchmark& benchmark,
                   const ComputeDevice& device, DdpTrainerMetrics& metrics, bool progressLines) {
  const WorkerIdentity& id = rendezvous.identity();
  const api::DDPSpec& ddp = benchmark.spec.benchmark.ddp;
  const int T = id.numTrainers;
  StoreHeartbeat heartbeat(rendezvous);
  RunControl control(rendezvous);
  const std::vector<SweepRow> rows = sweepOf(benchmark);
  long myRows = 0;
  for (const SweepRow& row : rows) myRows += id.roleIndex < row.ranks ? 1 : 0;
  ProgressReporter progress(
      progressLines, "iterations",
      static_cast<long>(ddp.models.size()) * myRows * (ddp.warmupIterations + ddp.iterations));
  progress.advance(0);

  for (size_t m = 0; m < ddp.models.size(); ++m) {
    const std::string& model = ddp.models[m];
    if (id.roleIndex == 0) {
      control.publish("params/" + std::to_string(m),
                      {static_cast<double>(parameterCount(model, ddp.numClasses))});
    }
    for (size_t r = 0; r < rows.size(); ++r) {
      const SweepRow& row = rows[r];
      if (id.roleIndex < row.ranks) {
        metrics.selectRow(model, row.ddp ? row.ranks : 0);
        std::unique_ptr<ProcessGroup> group;
        if (row.ddp) group = rendezvous.trainerSubgroup(rowKey(m, r), row.ranks);
        // Every measured iteration's timeline stays here; only its medians
        // per bucket travel.
        std::vector<std::vector<BucketTiming>> timelines;
        // Called before each iteration.
        const DdpPhaseSamples samples = runDdpRow(
            benchmark.spec, model, id.roleIndex, device, group.get(), &metrics,
            [&] {
              control.checkStillOn();
              progress.beginStep();
            },
            [&](const std::vector<BucketTiming>& t) { timelines.push_back(t); });
        progress.endStep();  // the row's last iteration
        control.publish(rowKey(m, r), samples.flatten());
        if (row.ddp) {
          control.publish(bucketsKey(m, r), flattenBuckets(summarizeBucketTimelines(timelines)));
        }
      }
      // Idle ranks wait here, off the CPU, so they do not disturb the row.
      control.barrier(rowKey(m, r), T);
    }
  }
  control.finish();
}

DdpMasterOutput runDdpMaster(Rendezvous& rendezvous, const api::DistBenchmark& benchmark,
                             const std::function<void(const std::string&)>& print) {
  const api::DDPSpec& ddp = benchmark.spec.benchmark.ddp;
  RunControl control(rendezvous);
  const std::vector<SweepRow> rows = sweepOf(benchmark);
  const bool gpus = usesGpus(benchmark);

  DdpMasterOutput out;
  for (size_t m = 0; m < ddp.models.size(); ++m) {
    const std::string& model = ddp.models[m];
    out.parameterCounts.push_back(
        static_cast<int64_t>(control.collect("params/" + std::to_string(m), 0).at(0)));
    print(formatDdpHeader(model, ddp.batchSize, gpus));
    DdpModelResult result{model, {}};
    for (size_t r = 0; r < rows.size(); ++r) {
      DdpRowResult row{rows[r], {}, {}, {}};
      for (int t = 0; t < rows[r].ranks; ++t) {
        row.ranks.push_back(api::trainerRank(benchmark.spec.topology, t));
        row.perRank.push_back(
            DdpPhaseSamples::unflatten(control.collect(rowKey(m, r), t), ddp.iterations));
        if (rows[r].ddp) {
          row.bucketsPerRank.push_back(unflattenBuckets(control.collect(bucketsKey(m, r), t)));
        }
      }
      result.rows.push_back(std::move(row));
      print(formatDdpRow(result.rows.back(), ddp.batchSize, result.rows.front(), gpus));
    }
    out.models.push_back(std::move(result));
  }
  control.awaitFinished();
  return out;
}

}  // namespace distbench::worker
