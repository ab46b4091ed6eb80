// HybridDDPRPC's entry (common/benchmark_kind.h): a master, parameter
// servers and trainers over the global Gloo group and the trainers' group
// (Gloo or NCCL, on the trainers' device).
#include <utility>
#include <vector>

#include "distbench/worker/comm/rendezvous.h"
#include "distbench/worker/common/benchmark_kind.h"
#include "distbench/worker/common/device_facts.h"
#include "distbench/worker/common/host_info.h"
#include "distbench/worker/common/master_output.h"
#include "distbench/worker/common/result_table.h"
#include "distbench/worker/common/worker_identity.h"
#include "distbench/worker/hybrid/hybrid_metrics.h"
#include "distbench/worker/hybrid/hybrid_report.h"
#include "distbench/worker/hybrid/master.h"
#include "distbench/worker/hybrid/parameter_server.h"
#include "distbench/worker/hybrid/ps_link.h"
#include "distbench/worker/hybrid/ps_stats_store.h"
#include "distbench/worker/hybrid/trainer.h"
#include "distbench/worker/hybrid/wire.h"

namespace distbench::worker {
namespace {

// The seed's banner, printed once the results are in.
void printBanner(const api::DistBenchmark& b, const std::vector<DeviceFacts>& gpus) {
  const int T = b.spec.topology.trainers, P = b.spec.topology.parameterServers;
  const std::string rule = "-------------------------------------------\n";
  printNow(rule + "                  Info                     \n" + rule + "\n");
  printInfo(b,
            formatText("%d trainer%s, %d parameter server%s, 1 master", T, T == 1 ? "" : "s", P,
                       P == 1 ? "" : "s"),
            gpus);
  printNow(rule + "PyTorch Distributed Benchmark (DDP and RPC)\n" + rule);
}

std::optional<report::Report> run(const KindRun& c) {
  const api::DistBenchmark& benchmark = c.benchmark;
  switch (c.identity.role) {
    case api::Role::Master: {
      const HybridMasterOutput out =
          runHybridMaster(benchmark, c.rendezvous.global(), [&](int parameterServer) {
            return readParameterServerStats(*c.rendezvous.store(), parameterServer);
          });
      printBanner(benchmark, c.gpus);
      printNow("\n" + formatResultTable(out.trainers));
      return hybridReport(benchmark, out.trainers, readHostInfo(), out.traffic);
    }
    case api::Role::ParameterServer: {
      const api::HybridDDPRPCSpec& spec = benchmark.spec.benchmark.hybridDDPRPC;
      // Listening (and the address published) before any trainer asks.
      TrainerLinkListener listener(c.identity, *c.rendezvous.store(),
                                   static_cast<size_t>(messageSizes(spec).request),
                                   c.rendezvous.timeouts().peer);
      std::vector<FramedSocket> links = listener.acceptAll(c.rendezvous.timeouts().rendezvous);
      ParameterServerOptions options{spec, c.dumpStateDir};
      options.publishStats = [&](const ParameterServerStats& stats) {
        publishParameterServerStats(*c.rendezvous.store(), c.identity.roleIndex, stats);
      };
      runHybridParameterServer(c.identity, c.rendezvous.global(), std::move(links),
                               c.metricsKeptUntilExit<ParameterServerMetrics>(), options);
      break;
    }
    case api::Role::Trainer:
      runHybridTrainer(c.identity, benchmark, c.rendezvous, c.device,
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

// Any device and backend: parameter servers and the master stay on the CPU
// and the global Gloo group; trainers' dense stacks follow spec.runtime.
constexpr KindEntry kEntry{api::BenchmarkKind::HybridDDPRPC, /*groups=*/{true, true}, run,
                           headline};

}  // namespace

const KindEntry& hybridKind() { return kEntry; }

}  // namespace distbench::worker
