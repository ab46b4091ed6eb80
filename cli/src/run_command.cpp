#include "distbench/cli/run_command.h"

#include <arpa/inet.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>

#include "distbench/api/renderer.h"
#include "distbench/cli/arg_parser.h"
#include "distbench/cli/commands.h"
#include "distbench/cli/exit_codes.h"
#include "distbench/cli/local_run/link_spec.h"
#include "distbench/cli/local_run/local_launcher.h"
#include "distbench/cli/local_run/local_wiring.h"
#include "distbench/cli/local_run/net_sandbox.h"
#include "distbench/cli/local_run/prometheus_targets.h"
#include "distbench/cli/local_run/run_lock.h"
#include "distbench/cli/local_run/run_output.h"
#include "distbench/cli/local_run/sandbox_plan.h"
#include "distbench/cli/local_run/sandbox_report.h"
#include "distbench/cli/local_run/sandbox_stats.h"
#include "distbench/cli/local_run/signal_watcher.h"
#include "distbench/cli/local_run/spec_local.h"
#include "distbench/process/free_ports.h"
#include "distbench/process/temp_dir.h"
#include "distbench/report/bit_rate.h"

namespace distbench::cli {

const char* const kRunUsage = R"USAGE(usage: distbench run FILE | --preset NAME [flags]

Run a DistBenchmark as local processes on 127.0.0.1: one distbench-worker per
rank (master, parameter servers, trainers), wired exactly as the operator
wires pods, with free ports picked for the rendezvous store and each rank's
/metrics. Rank logs go to stderr prefixed with the rank ("[trainer0] ..."),
the master's result table to stdout. The first rank to fail stops the run.

flags:
  --preset NAME             a built-in benchmark instead of FILE (default, tutorial)
  --worker PATH             the worker binary (default: distbench-worker beside distbench)
  --report FILE             where the master writes the JSON report
                            (default: <name>-report.json in the current directory)
  --no-report               write no report
  --dump-state DIR          pass --dump-state DIR to every rank
  --metrics-linger SECONDS  keep each rank's /metrics up this long after it
                            finishes (default: 0; 10 with --prometheus-sd)
  --prometheus-sd FILE      keep FILE a Prometheus file_sd target list of the
                            ranks' /metrics (labels benchmark, role, rank)
                            while the run lasts; an empty list after
  --metrics-address ADDR    the IPv4 address the ranks' /metrics listen on
                            (default: 127.0.0.1; 0.0.0.0 for every interface)
  --timeout SECONDS         stop the whole run after this long (default: 3600)
  --grace-period SECONDS    between SIGTERM and SIGKILL when stopping ranks (default: 5)

emulated links and stragglers (root; docs/cli.md, "Emulated links"):
  --links SPEC              run every rank in its own network namespace on a
                            bridge, its link shaped in bandwidth (tbf, both
                            directions): "bandwidth=1gbit;rank5=100mbit";
                            ranks by global rank (rank5) or name (trainer2,
                            ps0, master). A pair "trainer1-trainer3=50mbit"
                            shapes only the link between those two ranks,
                            both ways (htb, u32 filters). No delay is added:
                            latency cannot be emulated (no netem) and is
                            refused
  --slow SPEC               cap ranks' CPU with a cgroup: "rank3=cpu:50%"
                            (half of one CPU, all its threads together)
  --clean-up                remove what killed runs left behind (namespaces
                            dbl-*, cgroups distbench/*, /run/distbench locks)
                            and exit; every --links/--slow run does it first
  A spec's spec.local block (links, slow) means the same as these flags and
  is used when they are not given; --links overrides spec.local.links and
  --slow spec.local.slow, and the run says so.

exit status: 0 every rank succeeded; 1 a rank failed, could not start, or the
run timed out; 2 bad command line, spec or worker path, or a sandbox that
cannot be made here (nothing was started);
128+N interrupted by signal N: 130 SIGINT, 143 SIGTERM, 129 SIGHUP (terminal
closed), 131 SIGQUIT; the ranks are stopped and the sandbox removed first
)USAGE";

namespace {

// Five scrape intervals of docs/prometheus/prometheus.yml (2 s): rate() needs
// two scrapes of a histogram's last values, on a machine that may be busy.
constexpr int kLingerForAScraper = 10;

std::chrono::milliseconds toMillis(double seconds) {
  return std::chrono::milliseconds(static_cast<long long>(std::llround(seconds * 1000.0)));
}

std::string plural(std::size_t n, const char* singular, const char* pluralForm) {
  return std::to_string(n) + " " + (n == 1 ? singular : pluralForm);
}

// Free ports for the store and each rank's /metrics (the spec's fixed ones
// would collide on one machine), and the flags that reach the ranks.
LocalWiring wiringFor(const RunSettings& settings, const api::DistBenchmark& benchmark) {
  LocalWiring wiring;
  const auto world = static_cast<int>(api::worldSize(benchmark.spec));
  std::vector<int> ports = process::pickFreePorts(world + 1);
  wiring.masterPort = ports[0];
  wiring.metricsPorts.assign(ports.begin() + 1, ports.end());
  wiring.metricsLingerSeconds = settings.metricsLingerSeconds;
  wiring.metricsAddress = settings.metricsAddress;
  if (settings.writeReport) {
    std::string report = settings.reportPath.empty() ? benchmark.metadata.name + "-report.json"
                                                     : settings.reportPath;
    // Absolute, so the path in our messages is the one the master writes.
    wiring.reportPath = std::filesystem::absolute(report).string();
  }
  wiring.dumpStateDir = settings.dumpStateDir;
  return wiring;
}

bool writeFile(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.close();
  return static_cast<bool>(out);
}

// "distbench: running tutorial (HybridDDPRPC) locally: 1 master, 1 parameter
// server, 2 trainers; rendezvous 127.0.0.1:PORT"
std::string runningLine(const api::DistBenchmark& benchmark, const std::string& masterAddr,
                        int masterPort) {
  const api::TopologySpec& topology = benchmark.spec.topology;
  const std::string servers =
      topology.parameterServers == 0
          ? ""
          : plural(topology.parameterServers, "parameter server", "parameter servers") + ", ";
  return "distbench: running " + benchmark.metadata.name + " (" +
         api::toString(benchmark.spec.benchmark.kind) + ") locally: 1 master, " + servers +
         plural(topology.trainers, "trainer", "trainers") + "; rendezvous " + masterAddr + ":" +
         std::to_string(masterPort);
}

void logSuccess(TerminalOutput& output, std::size_t ranks, double seconds,
                const std::string& reportPath) {
  char took[32];
  std::snprintf(took, sizeof took, "%.1f s", seconds);
  output.log("distbench: all " + std::to_string(ranks) + " ranks finished in " + took);
  if (reportPath.empty()) return;
  if (std::filesystem::exists(reportPath)) {
    output.log("distbench: report written to " + reportPath);
  } else {
    output.log("distbench: the master wrote no report to " + reportPath);
  }
}

std::string percent(double cpus) {
  char text[32];
  std::snprintf(text, sizeof text, "%g%%", cpus * 100.0);
  return text;
}

// Said before the run, plainly: what is emulated and what is not.
void logSandbox(TerminalOutput& output, const SandboxPlan& plan) {
  if (plan.network) {
    std::string rates;
    for (const RankSandbox& rank : plan.ranks) {
      if (!rank.linkBitsPerSecond) continue;
      rates += (rates.empty() ? "" : ", ") + rank.label + " " +
               report::formatBitRate(*rank.linkBitsPerSecond);
    }
    output.log("distbench: emulated links: every rank in its own network namespace on one "
               "bridge (198.18.0.0/16); links are shaped in bandwidth only (tbf, both "
               "directions), no delay is added; " +
               (rates.empty() ? std::string("no rank is shaped") : "shaped: " + rates));
    std::string pairs;
    for (const auto& [ranksOf, bitsPerSecond] : plan.pairs) {
      const RankSandbox* a = plan.find(ranksOf.first);
      const RankSandbox* b = plan.find(ranksOf.second);
      pairs += (pairs.empty() ? "" : ", ") + (a ? a->label : "") + "-" + (b ? b->label : "") + " " +
               report::formatBitRate(bitsPerSecond);
    }
    if (!pairs.empty()) {
      output.log(
          "distbench: shaped pair links (htb with u32 filters at both ends, both "
          "directions; the ranks' other traffic keeps its own rate): " +
          pairs);
    }
  }
  std::string caps;
  for (const RankSandbox& rank : plan.ranks) {
    if (!rank.cpuLimit) continue;
    caps += (caps.empty() ? "" : ", ") + rank.label + " " + percent(*rank.cpuLimit) +
            " of one CPU";
  }
  if (!caps.empty()) output.log("distbench: CPU caps (cgroup, all threads of a rank together): " + caps);
}

// Ranks reach each other at their namespace's address: the store at rank 0's
// (MASTER_ADDR, set through the renderer), Gloo binds POD_IP.
void setPodIps(std::vector<api::RankProcess>& ranks, const SandboxPlan& plan) {
  for (api::RankProcess& rank : ranks) {
    const RankSandbox* sandbox = plan.find(rank.rank);
    if (!sandbox || sandbox->address.empty()) continue;
    bool replaced = false;
    for (api::EnvVar& var : rank.env) {
      if (var.name == api::kEnvPodIp) {
        var.value = sandbox->address;
        replaced = true;
      }
    }
    if (!replaced) rank.env.push_back(api::EnvVar{api::kEnvPodIp, sandbox->address});
  }
}

int cleanUpCommand() {
  std::vector<std::string> lines = sweepStaleSandboxes();
  for (const std::string& line : lines) std::cerr << line << "\n";
  if (lines.empty()) std::cerr << "distbench: no sandbox leftovers found\n";
  return kExitOk;
}

// The baseline is a cluster object (another benchmark's stored report, a
// ConfigMap key) that a local run cannot read; the run itself is valid.
void noteBaseline(const api::DistBenchmark& benchmark) {
  if (!benchmark.spec.baseline) return;
  std::cerr << "distbench: spec.baseline is compared by the operator in a cluster; locally, "
               "compare the reports with `distbench diff BASE.json RUN.json --threshold "
            << benchmark.spec.baseline->thresholdPercent << "`\n";
}

// spec.local stands for --links/--slow (spec_local.h); a flag overrides its
// part. False (said why) when the block's links meet a flag they exclude.
bool takeSpecLocal(const api::DistBenchmark& benchmark, RunSettings& settings) {
  const bool linksFlag = !settings.links.empty();
  SandboxRequest request = sandboxRequest(benchmark.spec.local, settings.links, settings.slow);
  for (const std::string& note : request.notes) std::cerr << note << "\n";
  if (!linksFlag && !request.links.empty() &&
      (!settings.prometheusSdPath.empty() || settings.metricsAddress != "127.0.0.1")) {
    std::cerr << "distbench: --prometheus-sd and --metrics-address cannot be used with "
                 "spec.local.links: every rank then runs in its own network namespace, whose "
                 "/metrics cannot be reached from this one\n";
    return false;
  }
  settings.links = std::move(request.links);
  settings.slow = std::move(request.slow);
  return true;
}

// Checked before anything starts, so that a missing build reads as a usage
// problem rather than as a rank that failed.
std::optional<std::string> checkedWorker(const RunSettings& settings) {
  std::string worker = settings.workerBinary.empty()
                           ? executableDirectory() + "/distbench-worker"
                           : settings.workerBinary;
  if (worker.find('/') != std::string::npos && ::access(worker.c_str(), X_OK) != 0) {
    std::cerr << "distbench: cannot use worker " << worker << ": " << std::strerror(errno)
              << " (build distbench-worker, or pass --worker PATH)\n";
    return std::nullopt;
  }
  return worker;
}

api::RenderOptions renderOptionsFor(const RunSettings& settings, const std::string& worker,
                                    const process::TempDir& tempDir) {
  api::RenderOptions renderOptions;
  // With --links the store is reached at rank 0's namespace address.
  renderOptions.masterAddr = settings.links.empty() ? "127.0.0.1" : rankAddress(0);
  renderOptions.workerBinary = worker;
  renderOptions.configPath = tempDir.path() + "/config.yaml";
  // Only this run's ranks can read it (mode 0600): other users of the
  // machine who find the store's port cannot name its keys (api/run_key.h).
  renderOptions.runKeyFile = tempDir.path() + "/run-key";
  return renderOptions;
}

// The ranks, with the run key and the config they read written; empty
// (said why) when either cannot be written.
std::optional<api::RenderedBenchmark> renderRun(const api::DistBenchmark& benchmark,
                                                const RunSettings& settings,
                                                const api::RenderOptions& renderOptions,
                                                LocalWiring& wiring) {
  if (!writeRunKeyFile(renderOptions.runKeyFile)) {
    std::cerr << "distbench: cannot write " << renderOptions.runKeyFile << "\n";
    return std::nullopt;
  }
  wiring = wiringFor(settings, benchmark);
  api::RenderedBenchmark rendered = renderForLocalRun(benchmark, renderOptions, wiring);
  if (!writeFile(renderOptions.configPath, rendered.configYaml)) {
    std::cerr << "distbench: cannot write " << renderOptions.configPath << "\n";
    return std::nullopt;
  }
  return rendered;
}

// The links and caps asked for, per rendered rank. Throws UsageError
// naming the entry that names no rank.
struct SandboxAsk {
  std::map<int, double> links;
  std::map<int, double> cpu;
  std::map<RankPair, double> pairs;
};
SandboxAsk resolveSandbox(const RunSettings& settings, const std::vector<api::RankProcess>& ranks) {
  SandboxAsk ask;
  try {
    if (!settings.links.empty()) {
      ask.links = resolveLinks(settings.links, ranks);
      ask.pairs = resolvePairs(settings.links, ranks);
    }
    if (!settings.slow.empty()) ask.cpu = resolveSlow(settings.slow, ranks);
  } catch (const SandboxSpecError& error) {
    throw UsageError(error.what());
  }
  return ask;
}

// Everything the sandbox needs is checked, and made, before any rank starts;
// a refusal says why, leaves nothing behind and returns false.
bool makeSandbox(const RunSettings& settings, std::vector<api::RankProcess>& ranks,
                 std::optional<LocalSandbox>& sandbox) {
  if (settings.links.empty() && settings.slow.empty()) return true;
  const SandboxAsk ask = resolveSandbox(settings, ranks);
  try {
    checkSandboxPrerequisites(!settings.links.empty(), !ask.cpu.empty());
    for (const std::string& line : sweepStaleSandboxes()) std::cerr << line << "\n";
    sandbox.emplace(planSandbox(newRunId(), ranks, ask.links, ask.cpu, !settings.links.empty(),
                                ask.pairs));
  } catch (const std::exception& error) {
    std::cerr << "distbench: " << error.what() << "\n";
    return false;
  }
  setPodIps(ranks, sandbox->plan());
  return true;
}

// --prometheus-sd: the targets file, kept while the run lasts. False (said
// why) when it cannot be written.
bool writeTargets(const RunSettings& settings, const api::DistBenchmark& benchmark,
                  const api::RenderedBenchmark& rendered, const LocalWiring& wiring,
                  const std::string& metricsHost, TerminalOutput& output,
                  std::optional<PrometheusTargetsFile>& targets) {
  if (settings.prometheusSdPath.empty()) return true;
  try {
    targets.emplace(settings.prometheusSdPath,
                    prometheusTargetsJson(benchmark.metadata.name, rendered.ranks,
                                          wiring.metricsPorts, metricsHost));
  } catch (const std::exception& e) {
    std::cerr << "distbench: --prometheus-sd: " << e.what() << "\n";
    return false;
  }
  output.log("distbench: Prometheus targets in " + settings.prometheusSdPath);
  return true;
}

LaunchOptions launchOptionsFor(const RunSettings& settings, const std::string& metricsHost,
                               int interruptFd, const std::optional<LocalSandbox>& sandbox) {
  LaunchOptions launchOptions;
  launchOptions.metricsHost = metricsHost;
  launchOptions.gracePeriod = settings.gracePeriod;
  launchOptions.timeout = settings.timeout;
  launchOptions.interruptFd = interruptFd;
  if (sandbox) {
    for (const RankSandbox& rank : sandbox->plan().ranks) {
      launchOptions.spawnOptions[rank.rank] = sandbox->spawnOptions(rank.rank);
    }
  }
  return launchOptions;
}

// The report's `local` block and the footer that reads it, added to a
// report the master wrote in this run (a failed run may leave an older one
// at the path).
void addLocalBlockToReport(const LocalSandbox& sandbox, const LaunchResult& result,
                           const std::string& reportPath, const RunSettings& settings,
                           TerminalOutput& output) {
  std::map<int, RankCounters> counters = sandbox.readCounters();
  for (const auto& [rank, seconds] : result.cpuSeconds) counters[rank].cpuSeconds = seconds;
  if (result.outcome != LaunchOutcome::Succeeded || reportPath.empty() ||
      !std::filesystem::exists(reportPath)) {
    return;
  }
  try {
    const std::string footer = addLocalBlock(
        reportPath, localBlockJson(sandbox.plan(), settings.links.text, settings.slow.text, counters));
    // The master's footer could not see the links; this one can.
    std::string lines = "\nWith the emulated links and CPU caps (the report's `local` block):\n" + footer;
    if (!lines.empty() && lines.back() == '\n') lines.pop_back();
    output.result(lines);
  } catch (const std::exception& error) {
    output.log("distbench: could not add the local block to " + reportPath + ": " + error.what());
  }
}

void tearDownSandbox(LocalSandbox& sandbox, TerminalOutput& output) {
  std::string problems = sandbox.tearDown();
  if (!problems.empty()) {
    output.log("distbench: the sandbox was not removed completely (`distbench run --clean-up` "
               "retries):\n" + problems);
  }
}

// From the rendered ranks to the exit status: the sandbox, the start lines,
// the targets file, the ranks, and what is said and added after them.
int launchRun(const RunSettings& settings, const api::DistBenchmark& benchmark,
              api::RenderedBenchmark& rendered, const api::RenderOptions& renderOptions,
              const LocalWiring& wiring, int interruptFd) {
  std::optional<LocalSandbox> sandbox;
  if (!makeSandbox(settings, rendered.ranks, sandbox)) return kExitUsage;

  TerminalOutput output(STDOUT_FILENO, STDERR_FILENO, ::isatty(STDERR_FILENO) == 1);
  output.log(runningLine(benchmark, renderOptions.masterAddr, wiring.masterPort));
  if (sandbox) logSandbox(output, sandbox->plan());

  // "0.0.0.0" is where ranks listen, not an address to reach them at.
  const std::string metricsHost =
      settings.metricsAddress == "0.0.0.0" ? "127.0.0.1" : settings.metricsAddress;
  std::optional<PrometheusTargetsFile> targets;
  if (!writeTargets(settings, benchmark, rendered, wiring, metricsHost, output, targets)) {
    return kExitUsage;
  }

  const LaunchOptions launchOptions = launchOptionsFor(settings, metricsHost, interruptFd, sandbox);
  auto started = std::chrono::steady_clock::now();
  LaunchResult result = LocalLauncher(rendered.ranks, output, launchOptions).run();
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  if (sandbox) {
    addLocalBlockToReport(*sandbox, result, wiring.reportPath, settings, output);
    tearDownSandbox(*sandbox, output);
  }
  if (result.outcome == LaunchOutcome::Succeeded) {
    logSuccess(output, rendered.ranks.size(), elapsed, wiring.reportPath);
  }
  output.clearStatus();
  return result.exitCode;
}

// --worker, --report, --no-report, --dump-state.
void parseOutputFlags(const ParsedArgs& parsed, RunSettings& settings) {
  if (auto worker = parsed.value("--worker")) {
    if (worker->empty()) throw UsageError("--worker needs a path");
    settings.workerBinary = *worker;
  }
  if (parsed.has("--report") && parsed.has("--no-report")) {
    throw UsageError("--report and --no-report contradict each other");
  }
  if (auto report = parsed.value("--report")) {
    if (report->empty()) throw UsageError("--report needs a file name");
    settings.reportPath = *report;
  }
  settings.writeReport = !parsed.has("--no-report");
  if (auto dir = parsed.value("--dump-state")) {
    if (dir->empty()) throw UsageError("--dump-state needs a directory");
    settings.dumpStateDir = *dir;
  }
}

// --prometheus-sd, --metrics-linger, --metrics-address.
void parseMetricsFlags(const ParsedArgs& parsed, RunSettings& settings) {
  if (auto file = parsed.value("--prometheus-sd")) {
    if (file->empty()) throw UsageError("--prometheus-sd needs a file name");
    settings.prometheusSdPath = *file;
    settings.metricsLingerSeconds = kLingerForAScraper;
  }
  if (auto linger = parsed.value("--metrics-linger")) {
    settings.metricsLingerSeconds = parseNonNegativeIntFlag("--metrics-linger", *linger);
  }
  if (auto address = parsed.value("--metrics-address")) {
    in_addr parsedAddress{};
    if (::inet_pton(AF_INET, address->c_str(), &parsedAddress) != 1) {
      throw UsageError("--metrics-address needs an IPv4 address such as 127.0.0.1 or 0.0.0.0, not '" +
                       *address + "'");
    }
    settings.metricsAddress = *address;
  }
}

// --timeout, --grace-period.
void parseTimingFlags(const ParsedArgs& parsed, RunSettings& settings) {
  if (auto timeout = parsed.value("--timeout")) {
    double seconds = parseSecondsFlag("--timeout", *timeout);
    if (seconds <= 0) throw UsageError("--timeout must be more than 0 seconds");
    settings.timeout = toMillis(seconds);
  }
  if (auto grace = parsed.value("--grace-period")) {
    settings.gracePeriod = toMillis(parseSecondsFlag("--grace-period", *grace));
  }
}

// --links and --slow, parsed now so that bad text is a usage error before
// anything starts.
void parseSandboxFlags(const ParsedArgs& parsed, RunSettings& settings) {
  try {
    if (auto links = parsed.value("--links")) settings.links = parseLinkSpec(*links);
    if (auto slow = parsed.value("--slow")) settings.slow = parseSlowSpec(*slow);
  } catch (const SandboxSpecError& error) {
    throw UsageError(error.what());
  }
  if (!settings.links.empty()) {
    for (const char* flag : {"--prometheus-sd", "--metrics-address"}) {
      if (parsed.has(flag)) {
        throw UsageError(std::string(flag) +
                         " cannot be used with --links: every rank then runs in its own "
                         "network namespace, whose /metrics cannot be reached from this one");
      }
    }
  }
}

}  // namespace

RunSettings parseRunArgs(const std::vector<std::string>& args) {
  ParsedArgs parsed = ArgParser({{"--preset", true},
                                 {"--worker", true},
                                 {"--report", true},
                                 {"--no-report", false},
                                 {"--dump-state", true},
                                 {"--metrics-linger", true},
                                 {"--prometheus-sd", true},
                                 {"--metrics-address", true},
                                 {"--timeout", true},
                                 {"--grace-period", true},
                                 {"--links", true},
                                 {"--slow", true},
                                 {"--clean-up", false}})
                          .parse(args);
  RunSettings settings;
  if (parsed.has("--help")) {
    settings.help = true;
    return settings;
  }
  if (parsed.has("--clean-up")) {
    settings.cleanUp = true;
    return settings;
  }
  settings.source = specSourceFrom(parsed);
  parseOutputFlags(parsed, settings);
  parseMetricsFlags(parsed, settings);
  parseTimingFlags(parsed, settings);
  parseSandboxFlags(parsed, settings);
  return settings;
}

std::string executableDirectory() {
  std::error_code error;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return ".";
  return self.parent_path().string();
}

int runCommand(const std::vector<std::string>& args) {
  RunSettings settings = parseRunArgs(args);
  if (settings.help) {
    std::cout << kRunUsage;
    return kExitOk;
  }
  if (settings.cleanUp) return cleanUpCommand();

  std::optional<api::DistBenchmark> benchmark = loadSpec(settings.source, std::cerr);
  if (!benchmark) return kExitUsage;
  noteBaseline(*benchmark);
  if (!takeSpecLocal(*benchmark, settings)) return kExitUsage;
  const std::optional<std::string> worker = checkedWorker(settings);
  if (!worker) return kExitUsage;

  // A Ctrl-C from here on reaches the launcher as a teardown request, even
  // one that arrives before the first rank is started.
  SignalWatcher signals;
  // A closed stdout (`distbench run | head`) must not kill us with ranks
  // still running; writes just fail.
  ::signal(SIGPIPE, SIG_IGN);

  process::TempDir tempDir;
  const api::RenderOptions renderOptions = renderOptionsFor(settings, *worker, tempDir);
  LocalWiring wiring;
  std::optional<api::RenderedBenchmark> rendered =
      renderRun(*benchmark, settings, renderOptions, wiring);
  if (!rendered) return kExitFailed;
  return launchRun(settings, *benchmark, *rendered, renderOptions, wiring, signals.fd());
}

}  // namespace distbench::cli
