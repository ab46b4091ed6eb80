// Collectives' entry (common/benchmark_kind.h): ranks that measure every op
// of the plan over the trainers' group (Gloo or NCCL), and a master that
// gathers their times through the store.
#include "distbench/worker/collectives/collective_results.h"
#include "distbench/worker/collectives/collectives_benchmark.h"
#include "distbench/worker/collectives/collectives_metrics.h"
#include "distbench/worker/common/benchmark_kind.h"
#include "distbench/worker/common/host_info.h"
#include "distbench/worker/common/master_output.h"
#include "distbench/worker/common/report_builder.h"
#include "distbench/worker/common/worker_identity.h"

namespace distbench::worker {
namespace {

std::optional<report::Report> run(const KindRun& c) {
  if (c.identity.role == api::Role::Trainer) {
    runCollectivesRank(c.rendezvous, c.benchmark, c.metricsKeptUntilExit<CollectivesRankMetrics>(),
                       c.progressLines);
    return std::nullopt;
  }
  const int ranks = c.identity.numTrainers;
  printSuiteBanner(c.benchmark, "distbench collectives", c.gpus);
  const std::vector<CollectiveResult> results = runCollectivesMaster(c.rendezvous, c.benchmark);
  printNow(formatCollectivesTable(results, ranks));
  report::Report r = reportEnvelope(c.benchmark, readHostInfo());
  addCollectivesResults(r, ranks, results);
  return r;
}

// The largest size of the first allreduce group (else of the first group);
// sizes ascend within a group, so that is its last row.
size_t headline(const report::Report& r) {
  std::string group = r.series[0].group;
  for (const report::Series& s : r.series) {
    if (s.group.rfind("allreduce ", 0) == 0) {
      group = s.group;
      break;
    }
  }
  size_t best = 0;
  for (size_t i = 0; i < r.series.size(); ++i)
    if (r.series[i].group == group) best = i;
  return best;
}

// Only the trainers' group: the master is in none, and everything it
// learns comes through the store.
constexpr KindEntry kEntry{api::BenchmarkKind::Collectives, /*groups=*/{false, true}, run,
                           headline};

}  // namespace

const KindEntry& collectivesKind() { return kEntry; }

}  // namespace distbench::worker
