// distbench-worker: one binary, three roles (master, ps, trainer), chosen by
// the environment the renderer sets. Exit status: 0 success, 1 a failure at
// run time (the message names the rank at fault), 2 a refusal: bad flags
// or config, a device the trainer cannot compute on, or another rank's
// such refusal (permanent: the operator fails the run with RankRefused
// instead of restarting the gang), 128 + signal (143, 130) when SIGTERM or
// SIGINT ended it before its part of the run was done, 0 when one ends the
// metrics linger (termination_watch.h). What a rank does once everyone has
// joined is its kind's (common/benchmark_kind.h); this file is what every
// kind shares.
#include <ATen/Parallel.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "distbench/api/spec_error.h"
#include "distbench/api/spec_yaml.h"
#include "distbench/api/worker_env.h"
#include "distbench/report/attribution.h"
#include "distbench/report/report_json.h"
#include "distbench/report/report_log.h"
#include "distbench/worker/comm/rendezvous.h"
#include "distbench/worker/comm/run_store.h"
#include "distbench/worker/comm/run_verdict.h"
#include "distbench/worker/comm/termination_watch.h"
#include "distbench/worker/common/benchmark_kind.h"
#include "distbench/worker/common/device_facts.h"
#include "distbench/worker/common/master_output.h"
#include "distbench/worker/common/metrics.h"
#include "distbench/worker/common/resident_heap.h"
#include "distbench/worker/common/result_summary.h"
#include "distbench/worker/common/worker_identity.h"
#include "distbench/worker/rank_device.h"

namespace {

using namespace distbench;
using namespace distbench::worker;

constexpr const char* kUsage =
    "usage: distbench-worker [--config FILE] [--report FILE] [--dump-state DIR]\n"
    "  Role, rank and rendezvous come from the environment (RANK, WORLD_SIZE,\n"
    "  MASTER_ADDR, MASTER_PORT, DISTBENCH_ROLE, DISTBENCH_ROLE_INDEX,\n"
    "  DISTBENCH_NUM_PS, DISTBENCH_NUM_TRAINERS; DISTBENCH_CONFIG for the config).\n"
    "  --report FILE     master only: write the JSON report there\n"
    "  --dump-state DIR  write final parameters (tests, audits)\n"
    "  DISTBENCH_REPORT_TO_LOG=1 (master only) also prints the report to stdout,\n"
    "  framed for the operator to read from the pod's log.\n";

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

// DISTBENCH_REPORT_TO_LOG: the operator reads the report back from this
// pod's log. The whole frame in one write straight to stdout, after whatever
// the master printed before, so no other output of ours lands inside it.
void printReportToLog(const report::Report& r) {
  const std::string json = report::toJson(r);
  const std::string frame = report::reportLogLines(json);
  std::cout.flush();
  std::fflush(stdout);
  for (size_t written = 0; written < frame.size();) {
    const ssize_t n = ::write(STDOUT_FILENO, frame.data() + written, frame.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      throw std::runtime_error(std::string("cannot print the report to the log (stdout): ") +
                               std::strerror(n < 0 ? errno : EIO));
    }
    written += static_cast<size_t>(n);
  }
  // As the begin line counts them: the base64 lines between it and the end line.
  const auto lines = std::count(frame.begin(), frame.end(), '\n') - 2;
  // One write: a reader of both streams (a test, a log collector) must not
  // find the report's stdout lines inside this one.
  std::cerr << ("master: report printed to the log for the operator (" +
                std::to_string(json.size()) + " bytes, " + std::to_string(lines) + " lines)\n");
}

bool reportToLogAsked() {
  const char* value = std::getenv(api::kEnvReportToLog);
  return value != nullptr && *value != '\0';
}

// Why the run is as fast as it is (report/attribution.h): into the report,
// so the JSON, the termination message's `bottleneck` and the page carry
// it, and printed under the result table. A report it cannot read costs
// the run its attribution, not its results.
void attributeRun(report::Report& r) {
  try {
    const report::Attribution attribution = report::attribute(r);
    r.attributionJson = report::attributionToJson(attribution);
    printNow(report::formatAttributionFooter(attribution));
  } catch (const report::ReportError& e) {
    std::cerr << "master: no attribution: " << e.what() << "\n";
  }
}

// In a pod --report is unset: there the report reaches the operator through
// the log, when it asks (DISTBENCH_REPORT_TO_LOG).
void writeReportIfAsked(const Flags& flags, const report::Report& r, HeadlineRule headline) {
  const std::string summary = writeTerminationMessage(r, headline);
  if (!summary.empty()) std::cerr << "master: result summary written to " << summary << "\n";
  if (reportToLogAsked()) printReportToLog(r);
  if (flags.report.empty()) return;
  report::writeReportFile(flags.report, r);
  std::cerr << "master: report written to " << flags.report << "\n";
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
  // Drop c10's backtrace; then the run key a store error may name.
  return redactRunKey(msg.substr(0, msg.find("\nException raised from")));
}

// Once the process groups exist, unwinding would run ProcessGroupGloo's
// destructor, which waits for in-flight collectives to time out. A failed
// rank has nothing left to finish, so it says why and leaves at once.
// The verdict it publishes ends the other ranks at once.
[[noreturn]] void failFast(const std::exception& e) {
  TerminationWatch::installed()->failWith(1, errorText(e));
}

// The config --config or DISTBENCH_CONFIG names, checked against the
// environment's topology.
api::DistBenchmark loadBenchmark(const Flags& flags, const WorkerIdentity& id) {
  const std::string configPath = flags.config.empty() ? id.configPath : flags.config;
  if (configPath.empty()) throw UsageError("no config: pass --config or set DISTBENCH_CONFIG");
  api::DistBenchmark benchmark = api::loadDistBenchmarkFile(configPath);
  checkTopology(id, benchmark);
  return benchmark;
}

// A trainer that cannot compute where the spec says ends the run: the
// verdict tells every other rank why, so none waits for it, and that it is
// a refusal, so every rank exits 2 with it and the operator does not try
// the same gang again.
[[noreturn]] void endRunForDevice(Rendezvous& rendezvous, const WorkerIdentity& id,
                                  const std::string& why) {
  const std::string verdict = id.label() + " cannot run: " + why;
  try {
    publishVerdict(*rendezvous.store(), verdict, /*refusal=*/true);
  } catch (const std::exception&) {
    // Still ours to report; the others then learn it from the missing rank.
  }
  TerminationWatch::installed()->exitWith(2, workerName() + ": " + verdict);
}

// A rank whose /metrics cannot start still runs: the report is what the run
// is for. The reason is printed, and the rank records into a registry that
// nothing serves (on the first GPU machine every rank stopped here, so the
// run measured nothing).
std::unique_ptr<MetricsEndpoint> openMetrics(const WorkerIdentity& id) {
  const std::string role = api::toString(id.role);
  try {
    return std::make_unique<MetricsEndpoint>(id.benchmarkName, role, id.rank, id.metricsPort,
                                             id.metricsAddress);
  } catch (const std::exception& e) {
    std::cerr << id.label() << ": warning: " << e.what() << "; this rank runs without /metrics\n";
    return std::make_unique<MetricsEndpoint>(id.benchmarkName, role, id.rank, /*port=*/0);
  }
}

RendezvousTimeouts timeoutsOf(const api::RuntimeSpec& runtime) {
  RendezvousTimeouts timeouts;
  timeouts.rendezvous = std::chrono::seconds(runtime.rendezvousTimeoutSeconds);
  timeouts.peer = std::chrono::seconds(runtime.peerTimeoutSeconds);
  return timeouts;
}

int run(const Flags& flags) {
  const WorkerIdentity id = identityFromEnvironment();
  TerminationWatch& watch = *TerminationWatch::installed();
  watch.setIdentity(id);
  const api::DistBenchmark benchmark = loadBenchmark(flags, id);
  const auto& runtime = benchmark.spec.runtime;
  const KindEntry& kind = kindEntry(benchmark.spec.benchmark.kind);
  if (runtime.intraOpThreads > 0) at::set_num_threads(runtime.intraOpThreads);

  const std::unique_ptr<MetricsEndpoint> metricsEndpoint = openMetrics(id);
  const MetricsEndpoint& metrics = *metricsEndpoint;
  Rendezvous rendezvous(id, timeoutsOf(runtime), [&] {
    watch.watchVerdicts();
    std::cerr << id.label() << ": checked in; waiting for the other ranks\n";
  });
  std::cerr << id.label() << ": joined " << id.worldSize << " ranks"
            << (metrics.endpoint().empty() ? "" : "; metrics at " + metrics.endpoint()) << "\n";

  ComputeDevice device = ComputeDevice::cpu();
  std::vector<DeviceFacts> gpus;
  if (id.role == api::Role::Trainer) {
    try {
      device = placeTrainer(id, runtime, *rendezvous.store());
    } catch (const PlacementError& e) {
      endRunForDevice(rendezvous, id, e.what());
    }
    if (device.isCuda()) std::cerr << id.label() << ": computing on " << device.name() << "\n";
  }
  try {
    if (id.role == api::Role::Master && runtime.device == api::Device::CUDA) {
      gpus = readDeviceFacts(*rendezvous.store(), id.numTrainers, timeoutsOf(runtime).peer);
    }
    rendezvous.formGroups(kind.groups, {runtime.backend, device});
  } catch (const std::exception& e) {
    failFast(e);
  }

  const KindRun context{id,
                        benchmark,
                        rendezvous,
                        metrics,
                        device,
                        gpus,
                        flags.dumpState,
                        /*progressLines=*/std::getenv(api::kEnvProgress) != nullptr};
  try {
    if (std::optional<report::Report> masterReport = kind.run(context)) {
      addDeviceFacts(*masterReport, gpus);
      attributeRun(*masterReport);
      masterReport->masterOutput = printedSoFar();
      writeReportIfAsked(flags, *masterReport, kind.headline);
    }
  } catch (const std::exception& e) {
    failFast(e);
  }
  watch.workDone();
  if (id.metricsLingerSeconds > 0 && !metrics.endpoint().empty()) {
    // Said only after workDone(): from this line on a SIGTERM ends the rank with status 0.
    std::cerr << id.label() << ": run complete; serving metrics " << id.metricsLingerSeconds
              << " s more for a scraper\n";
  }
  metrics.linger(id.metricsLingerSeconds);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Before the first tensor: every row of every kind on the same heap policy.
  keepHeapResident();
  const std::string who = workerName();
  // Before anything else: from here on SIGTERM ends this process at once.
  TerminationWatch::install(who);
  try {
    return run(parseFlags(argc, argv));
  } catch (const UsageError& e) {
    // The reason last: in a pod the kubelet keeps the log's last line as the
    // termination message, which the operator quotes as why the rank failed.
    std::cerr << kUsage << who << ": " << redactRunKey(e.what()) << "\n";
    return 2;
  } catch (const api::SpecError& e) {
    std::cerr << who << ": invalid config:\n" << redactRunKey(e.what()) << "\n";
    return 2;
  } catch (const std::exception& e) {
    // Before the groups exist (a port it cannot bind, the store refused):
    // still the run's verdict, for the ranks already waiting on this one.
    TerminationWatch::installed()->failWith(1, errorText(e));
  }
}
