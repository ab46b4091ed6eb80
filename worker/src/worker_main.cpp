// distbench-worker: one binary, three roles (master, ps, trainer), chosen by
// the environment the renderer sets. Exit status: 0 success, 1 a failure at
// run time (the message names the rank at fault), 2 bad flags or config,
// 128 + signal (143, 130) when SIGTERM or SIGINT ended it before its part of
// the run was done, 0 when one ends the metrics linger (termination_watch.h).
#include <ATen/Parallel.h>
#include <torch/version.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "collectives/collectives_benchmark.h"
#include "collectives/collectives_metrics.h"
#include "comm/rendezvous.h"
#include "comm/termination_watch.h"
#include "common/host_info.h"
#include "common/metrics.h"
#include "common/report_builder.h"
#include "common/result_summary.h"
#include "common/result_table.h"
#include "common/worker_identity.h"
#include "ddp/ddp_benchmark.h"
#include "ddp/ddp_metrics.h"
#include "distbench/api/spec_error.h"
#include "distbench/api/spec_yaml.h"
#include "distbench/api/worker_env.h"
#include "distbench/report/report_json.h"
#include "hybrid/hybrid_metrics.h"
#include "hybrid/master.h"
#include "hybrid/parameter_server.h"
#include "hybrid/trainer.h"

namespace {

using namespace distbench;
using namespace distbench::worker;

constexpr const char* kUsage =
    "usage: distbench-worker [--config FILE] [--report FILE] [--dump-state DIR]\n"
    "  Role, rank and rendezvous come from the environment (RANK, WORLD_SIZE,\n"
    "  MASTER_ADDR, MASTER_PORT, DISTBENCH_ROLE, DISTBENCH_ROLE_INDEX,\n"
    "  DISTBENCH_NUM_PS, DISTBENCH_NUM_TRAINERS; DISTBENCH_CONFIG for the config).\n"
    "  --report FILE     master only: write the JSON report there\n"
    "  --dump-state DIR  write final parameters (tests, audits)\n";

struct Flags {
  std::string config;
  std::string report;
  std::string dumpState;
};

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

Flags parseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--config")
      f.config = value();
    else if (arg == "--report")
      f.report = value();
    else if (arg == "--dump-state")
      f.dumpState = value();
    else if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else {
      throw UsageError("unknown flag " + arg);
    }
  }
  return f;
}

void checkTopology(const WorkerIdentity& id, const api::DistBenchmark& b) {
  if (b.spec.topology.parameterServers != id.numParameterServers ||
      b.spec.topology.trainers != id.numTrainers) {
    throw UsageError("environment says " + std::to_string(id.numParameterServers) + " PS / " +
                     std::to_string(id.numTrainers) +
                     " trainers but the config's spec.topology "
                     "says " +
                     std::to_string(b.spec.topology.parameterServers) + " / " +
                     std::to_string(b.spec.topology.trainers));
  }
}

void printInfo(const api::DistBenchmark& b) {
  std::printf("* distbench version: %s\n", DISTBENCH_VERSION);
  std::printf("* PyTorch (LibTorch) version: %s\n", TORCH_VERSION);
  std::printf("* Distributed backend: %s\n", api::toString(b.spec.runtime.backend));
  std::printf("* Device: %s\n", api::toString(b.spec.runtime.device));
  const int T = b.spec.topology.trainers, P = b.spec.topology.parameterServers;
  if (b.spec.benchmark.kind == api::BenchmarkKind::HybridDDPRPC) {
    std::printf("* Topology: %d trainer%s, %d parameter server%s, 1 master\n\n", T,
                T == 1 ? "" : "s", P, P == 1 ? "" : "s");
  } else {
    std::printf("* Topology: %d rank%s, 1 master\n\n", T, T == 1 ? "" : "s");
  }
}

void printBanner(const api::DistBenchmark& b) {
  std::printf("-------------------------------------------\n");
  std::printf("                  Info                     \n");
  std::printf("-------------------------------------------\n\n");
  printInfo(b);
  std::printf("-------------------------------------------\n");
  std::printf("PyTorch Distributed Benchmark (DDP and RPC)\n");
  std::printf("-------------------------------------------\n");
}

// The DDP seed's banner, printed before the sweep so rows can follow as
// they complete.
void printSuiteBanner(const api::DistBenchmark& b, const char* title) {
  std::printf("-----------------------------------\n");
  std::printf("%s\n", title);
  std::printf("-----------------------------------\n\n");
  printInfo(b);
  std::fflush(stdout);
}

void printNow(const std::string& text) {
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
}

void writeReportIfAsked(const Flags& flags, const report::Report& r) {
  const std::string summary = writeTerminationMessage(r);
  if (!summary.empty()) std::cerr << "master: result summary written to " << summary << "\n";
  if (flags.report.empty()) return;
  report::writeReportFile(flags.report, r);
  std::cerr << "master: report written to " << flags.report << "\n";
}

// What each kind needs of the device and backend, checked before anyone
// joins: a rank that cannot run should say so, naming the field, rather than
// measure something else.
void checkRuntimeSupported(const api::DistBenchmark& b) {
  const auto& runtime = b.spec.runtime;
  if (runtime.device == api::Device::CPU && runtime.backend == api::Backend::Gloo) return;
  if (b.spec.benchmark.kind == api::BenchmarkKind::HybridDDPRPC) {
    throw UsageError("spec.runtime.device: " + std::string(api::toString(runtime.device)) + "/" +
                     api::toString(runtime.backend) +
                     " is not supported by HybridDDPRPC in this worker; use cpu with gloo");
  }
  throw UsageError("spec.runtime.backend: " + std::string(api::toString(runtime.backend)) + " on " +
                   api::toString(runtime.device) + ": this worker build (LibTorch " +
                   TORCH_VERSION + ") has only the CPU Gloo backend");
}

GroupsWanted groupsFor(api::BenchmarkKind kind) {
  switch (kind) {
    case api::BenchmarkKind::HybridDDPRPC:
      return {true, true};
    case api::BenchmarkKind::DDP:
      return {false, false};  // one group per sweep row
    case api::BenchmarkKind::Collectives:
      return {false, true};
  }
  return {};
}

// A role's metrics live until the process exits: on a failure, threads the
// role started (a parameter server's peer threads, Gloo's completion
// callbacks) may still record after its code has unwound, and failFast
// exits without waiting for them.
template <typename RoleMetrics>
RoleMetrics& keptUntilExit(const MetricsEndpoint& endpoint) {
  return *new RoleMetrics(endpoint);
}

void runHybrid(const Flags& flags, const WorkerIdentity& id, const api::DistBenchmark& benchmark,
               Rendezvous& rendezvous, const MetricsEndpoint& metrics, bool progress) {
  switch (id.role) {
    case api::Role::Master: {
      std::vector<TrainerResult> results = runHybridMaster(benchmark, rendezvous.global());
      printBanner(benchmark);
      printNow("\n" + formatResultTable(results));
      writeReportIfAsked(flags, hybridReport(benchmark, results, readHostInfo()));
      break;
    }
    case api::Role::ParameterServer:
      runHybridParameterServer(id, rendezvous.global(),
                               keptUntilExit<ParameterServerMetrics>(metrics),
                               {benchmark.spec.benchmark.hybridDDPRPC, flags.dumpState});
      break;
    case api::Role::Trainer:
      runHybridTrainer(id, benchmark, rendezvous, keptUntilExit<HybridTrainerMetrics>(metrics),
                       {flags.dumpState, progress});
      break;
  }
}

void runDdp(const Flags& flags, const WorkerIdentity& id, const api::DistBenchmark& benchmark,
            Rendezvous& rendezvous, const MetricsEndpoint& metrics) {
  if (id.role == api::Role::Trainer) {
    return runDdpTrainer(rendezvous, benchmark, keptUntilExit<DdpTrainerMetrics>(metrics));
  }
  printSuiteBanner(benchmark, "PyTorch distributed benchmark suite");
  DdpMasterOutput out = runDdpMaster(rendezvous, benchmark, printNow);
  report::Report r = reportEnvelope(benchmark, readHostInfo());
  addDdpResults(r, benchmark.spec.benchmark.ddp, out.models, out.parameterCounts);
  writeReportIfAsked(flags, r);
}

void runCollectives(const Flags& flags, const WorkerIdentity& id,
                    const api::DistBenchmark& benchmark, Rendezvous& rendezvous,
                    const MetricsEndpoint& metrics) {
  if (id.role == api::Role::Trainer) {
    return runCollectivesRank(rendezvous, benchmark,
                              keptUntilExit<CollectivesRankMetrics>(metrics));
  }
  printSuiteBanner(benchmark, "distbench collectives");
  const std::vector<CollectiveResult> results = runCollectivesMaster(rendezvous, benchmark);
  printNow(formatCollectivesTable(results, id.numTrainers));
  report::Report r = reportEnvelope(benchmark, readHostInfo());
  addCollectivesResults(r, id.numTrainers, results);
  writeReportIfAsked(flags, r);
}

// "distbench-worker ps1": how this process names itself in messages.
std::string workerName() {
  std::string who = "distbench-worker";
  const char* role = std::getenv(api::kEnvRole);
  const char* index = std::getenv(api::kEnvRoleIndex);
  if (role != nullptr) {
    who +=
        std::string(" ") + role + (index != nullptr && std::string(role) != "master" ? index : "");
  }
  return who;
}

std::string errorText(const std::exception& e) {
  const std::string msg = e.what();
  return msg.substr(0, msg.find("\nException raised from"));  // drop c10's backtrace
}

// Once the process groups exist, unwinding would run ProcessGroupGloo's
// destructor, which waits for in-flight collectives to time out. A failed
// rank has nothing left to finish, so it says why and leaves at once.
[[noreturn]] void failFast(const std::exception& e) {
  TerminationWatch::installed()->exitWith(1, workerName() + ": error: " + errorText(e));
}

int run(const Flags& flags) {
  const WorkerIdentity id = identityFromEnvironment();
  TerminationWatch& watch = *TerminationWatch::installed();
  watch.setIdentity(id);
  const std::string configPath = flags.config.empty() ? id.configPath : flags.config;
  if (configPath.empty()) throw UsageError("no config: pass --config or set DISTBENCH_CONFIG");
  const api::DistBenchmark benchmark = api::loadDistBenchmarkFile(configPath);
  checkTopology(id, benchmark);
  const auto& runtime = benchmark.spec.runtime;
  checkRuntimeSupported(benchmark);
  if (runtime.intraOpThreads > 0) at::set_num_threads(runtime.intraOpThreads);
  const api::BenchmarkKind kind = benchmark.spec.benchmark.kind;

  MetricsEndpoint metrics(id.benchmarkName, api::toString(id.role), id.rank, id.metricsPort);
  RendezvousTimeouts timeouts;
  timeouts.rendezvous = std::chrono::seconds(runtime.rendezvousTimeoutSeconds);
  timeouts.peer = std::chrono::seconds(runtime.peerTimeoutSeconds);
  Rendezvous rendezvous(id, timeouts, groupsFor(kind), [&] {
    watch.watchVerdicts();
    std::cerr << id.label() << ": checked in; waiting for the other ranks\n";
  });
  std::cerr << id.label() << ": joined " << id.worldSize << " ranks"
            << (metrics.endpoint().empty() ? "" : "; metrics at " + metrics.endpoint()) << "\n";

  const bool progress = std::getenv(api::kEnvProgress) != nullptr;
  try {
    switch (kind) {
      case api::BenchmarkKind::HybridDDPRPC:
        runHybrid(flags, id, benchmark, rendezvous, metrics, progress);
        break;
      case api::BenchmarkKind::DDP:
        runDdp(flags, id, benchmark, rendezvous, metrics);
        break;
      case api::BenchmarkKind::Collectives:
        runCollectives(flags, id, benchmark, rendezvous, metrics);
        break;
    }
  } catch (const std::exception& e) {
    failFast(e);
  }
  watch.workDone();
  metrics.linger(id.metricsLingerSeconds);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string who = workerName();
  // Before anything else: from here on SIGTERM ends this process at once.
  TerminationWatch::install(who);
  try {
    return run(parseFlags(argc, argv));
  } catch (const UsageError& e) {
    std::cerr << who << ": " << e.what() << "\n" << kUsage;
    return 2;
  } catch (const api::SpecError& e) {
    std::cerr << who << ": invalid config:\n" << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << who << ": error: " << errorText(e) << "\n";
    return 1;
  }
}
