// Fabric's entry (common/benchmark_kind.h): trainers, one per node, that
// probe, measure pairs and allreduce over the trainers' group; a master
// that gathers their samples through the store, judges them
// (report/fabric_verdict.h), prints the verdict and exports it per node.
#include "distbench/report/fabric_verdict.h"
#include "distbench/worker/common/benchmark_kind.h"
#include "distbench/worker/common/host_info.h"
#include "distbench/worker/common/master_output.h"
#include "distbench/worker/common/report_builder.h"
#include "distbench/worker/common/worker_identity.h"
#include "distbench/worker/fabric/fabric_benchmark.h"
#include "distbench/worker/fabric/fabric_metrics.h"
#include "distbench/worker/fabric/fabric_results.h"

namespace distbench::worker {
namespace {

std::optional<report::Report> run(const KindRun& c) {
  if (c.identity.role == api::Role::Trainer) {
    runFabricRank(c.rendezvous, c.benchmark, c.device, c.progressLines);
    return std::nullopt;
  }
  printSuiteBanner(c.benchmark, "distbench fabric", c.gpus);
  const report::FabricMeasurements m = runFabricMaster(c.rendezvous, c.benchmark);
  report::FabricVerdictOptions options;
  options.thresholdPercent = c.benchmark.spec.benchmark.fabric.thresholdPercent;
  const report::FabricVerdict verdict = report::judgeFabric(m, options);
  printNow(report::formatFabricVerdict(verdict, m));
  exportFabricVerdict(c.metrics, m, verdict);
  report::Report r = reportEnvelope(c.benchmark, readHostInfo());
  addFabricResults(r, m, verdict);
  return r;
}

// The allreduce: the whole group's figure (fabric_results.cpp writes it first).
size_t headline(const report::Report& r) {
  for (size_t i = 0; i < r.series.size(); ++i)
    if (r.series[i].group == "allreduce") return i;
  return 0;
}

// Only the trainers' group: the master is in none.
constexpr KindEntry kEntry{api::BenchmarkKind::Fabric, /*groups=*/{false, true}, run, headline};

}  // namespace

const KindEntry& fabricKind() { return kEntry; }

}  // namespace distbench::worker
