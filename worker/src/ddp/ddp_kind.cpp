// DDP's entry (common/benchmark_kind.h): trainers that walk the model sweep
// in a group per row (Gloo or NCCL, on their device), and a master that
// prints rows as they complete.
#include "distbench/worker/common/benchmark_kind.h"
#include "distbench/worker/common/host_info.h"
#include "distbench/worker/common/master_output.h"
#include "distbench/worker/common/report_builder.h"
#include "distbench/worker/common/worker_identity.h"
#include "distbench/worker/ddp/ddp_benchmark.h"
#include "distbench/worker/ddp/ddp_metrics.h"
#include "distbench/worker/ddp/ddp_results.h"

namespace distbench::worker {
namespace {

std::optional<report::Report> run(const KindRun& c) {
  if (c.identity.role == api::Role::Trainer) {
    runDdpTrainer(c.rendezvous, c.benchmark, c.device, c.metricsKeptUntilExit<DdpTrainerMetrics>(),
                  c.progressLines);
    return std::nullopt;
  }
  printSuiteBanner(c.benchmark, "PyTorch distributed benchmark suite", c.gpus);
  DdpMasterOutput out = runDdpMaster(c.rendezvous, c.benchmark, printNow);
  report::Report r = reportEnvelope(c.benchmark, readHostInfo());
  addDdpResults(r, c.benchmark.spec.benchmark.ddp, out.models, out.parameterCounts);
  return r;
}

// The first model's largest row: its series come first, rows ascending.
size_t headline(const report::Report& r) {
  size_t best = 0;
  for (size_t i = 0; i < r.series.size() && r.series[i].group == r.series[0].group; ++i) best = i;
  return best;
}

// No Gloo group at the start: the sweep forms one per row.
constexpr KindEntry kEntry{api::BenchmarkKind::DDP, /*groups=*/{false, false}, run,
                           headline};

}  // namespace

const KindEntry& ddpKind() { return kEntry; }

}  // namespace distbench::worker
