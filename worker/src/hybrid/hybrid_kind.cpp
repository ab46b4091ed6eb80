// HybridDDPRPC's entry (common/benchmark_kind.h): a master, parameter
// servers and trainers over the global and trainers' Gloo groups.
#include <cstdio>

#include "comm/rendezvous.h"
#include "common/benchmark_kind.h"
#include "common/host_info.h"
#include "common/master_output.h"
#include "common/report_builder.h"
#include "common/result_table.h"
#include "common/worker_identity.h"
#include "hybrid/hybrid_metrics.h"
#include "hybrid/master.h"
#include "hybrid/parameter_server.h"
#include "hybrid/trainer.h"

namespace distbench::worker {
namespace {

// The parameter servers' and trainers' message loops run on CPU tensors
// over Gloo alone, whatever the build could do otherwise.
std::string unsupportedRuntime(const api::RuntimeSpec& runtime) {
  if (runtime.device == api::Device::CPU && runtime.backend == api::Backend::Gloo) return "";
  return "spec.runtime.device: " + std::string(api::toString(runtime.device)) + "/" +
         api::toString(runtime.backend) +
         " is not supported by HybridDDPRPC in this worker; use cpu with gloo";
}

// The seed's banner, printed once the results are in.
void printBanner(const api::DistBenchmark& b) {
  const int T = b.spec.topology.trainers, P = b.spec.topology.parameterServers;
  std::printf("-------------------------------------------\n");
  std::printf("                  Info                     \n");
  std::printf("-------------------------------------------\n\n");
  printInfo(b, formatText("%d trainer%s, %d parameter server%s, 1 master", T, T == 1 ? "" : "s", P,
                          P == 1 ? "" : "s"));
  std::printf("-------------------------------------------\n");
  std::printf("PyTorch Distributed Benchmark (DDP and RPC)\n");
  std::printf("-------------------------------------------\n");
}

std::optional<report::Report> run(const KindRun& c) {
  const api::DistBenchmark& benchmark = c.benchmark;
  switch (c.identity.role) {
    case api::Role::Master: {
      std::vector<TrainerResult> results = runHybridMaster(benchmark, c.rendezvous.global());
      printBanner(benchmark);
      printNow("\n" + formatResultTable(results));
      return hybridReport(benchmark, results, readHostInfo());
    }
    case api::Role::ParameterServer:
      runHybridParameterServer(c.identity, c.rendezvous.global(),
                               c.metricsKeptUntilExit<ParameterServerMetrics>(),
                               {benchmark.spec.benchmark.hybridDDPRPC, c.dumpStateDir});
      break;
    case api::Role::Trainer:
      runHybridTrainer(c.identity, benchmark, c.rendezvous,
                       c.metricsKeptUntilExit<HybridTrainerMetrics>(),
                       {c.dumpStateDir, c.progressLines});
      break;
  }
  return std::nullopt;
}

// The pooled `All` row, as the result table's last line.
size_t headline(const report::Report& r) {
  for (size_t i = 0; i < r.series.size(); ++i)
    if (r.series[i].row == "All") return i;
  return 0;
}

constexpr KindEntry kEntry{api::BenchmarkKind::HybridDDPRPC, /*groups=*/{true, true},
                           unsupportedRuntime, run, headline};

}  // namespace

const KindEntry& hybridKind() { return kEntry; }

}  // namespace distbench::worker
