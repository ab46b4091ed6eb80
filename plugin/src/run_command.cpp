// run: apply a DistBenchmark, and with --wait follow it to its end.
#include <chrono>
#include <ctime>
#include <iostream>
#include <optional>
#include <thread>

#include "distbench/api/spec_error.h"
#include "distbench/api/spec_yaml.h"
#include "distbench/cli/arg_parser.h"
#include "distbench/plugin/cluster_objects.h"
#include "distbench/plugin/cluster_reports.h"
#include "distbench/plugin/commands.h"
#include "distbench/plugin/exit_codes.h"
#include "distbench/plugin/run_follow.h"
#include "distbench/plugin/run_view.h"

namespace distbench::plugin {
namespace {

using web::json::value;
using Clock = std::chrono::steady_clock;
constexpr std::chrono::seconds kSettleLimit{120};

std::string now() {
  const std::time_t t = std::time(nullptr);
  char buffer[16];
  std::strftime(buffer, sizeof buffer, "%H:%M:%S", std::localtime(&t));
  return buffer;
}

bool hasStatus(const value& b) {
  return b.has_field("status") && b.at("status").has_field("phase");
}

}  // namespace

const char* const kRunHelp =
    R"(usage: kubectl distbench run -f SPEC.yaml [--wait] [--timeout SECONDS] [--replace]

Apply a DistBenchmark (checked first, as `distbench validate` does). With
--wait, follow it: its phase, gang and ranks ready, each gang restart with
its cause and the failed rank's last line; at the end the master's rows,
the bottleneck and the verdict against spec.baseline (kubectl distbench get).

  --wait              follow the run to its end
  --timeout SECONDS   stop following after this long (default 3600; the run goes on)
  --operator-timeout SECONDS
                      fail when no operator has written the run's status by
                      then (default 60)
  --replace           a finished run of that name is deleted and made again
                      (without it, re-applying a finished run changes nothing
                      and is refused)

exit status: 0 Succeeded (or applied, without --wait), 1 Failed, 2 bad
spec or command line, 3 Succeeded and regressed against its baseline,
4 the cluster (kubectl, CRDs, no operator, RBAC), 5 --timeout passed

examples:
  kubectl distbench run -f examples/small.yaml --wait
  kubectl distbench -n team-a run -f nightly.yaml --wait --timeout 7200
)";

int runCommand(const Kubectl& kubectl, const std::vector<std::string>& args) {
  const cli::ParsedArgs parsed = cli::ArgParser({{"-f", true},
                                                 {"--filename", true},
                                                 {"--wait", false},
                                                 {"--replace", false},
                                                 {"--timeout", true},
                                                 {"--operator-timeout", true}})
                                     .parse(args);
  if (parsed.has("--help")) {
    std::cout << kRunHelp;
    return kExitOk;
  }
  auto file = parsed.value("-f");
  if (!file) file = parsed.value("--filename");
  if (!file) throw cli::UsageError("missing -f SPEC.yaml");
  if (!parsed.positionals().empty()) throw cli::UsageError("unexpected " + parsed.positionals()[0]);
  const int timeout =
      cli::parseNonNegativeIntFlag("--timeout", parsed.value("--timeout").value_or("3600"));
  const int operatorTimeout = cli::parseNonNegativeIntFlag(
      "--operator-timeout", parsed.value("--operator-timeout").value_or("60"));

  std::string name;
  try {
    name = api::loadDistBenchmarkFile(*file).metadata.name;
  } catch (const api::SpecError& error) {
    std::cerr << "kubectl distbench run: " << error.what();
    return kExitUsage;
  }
  if (auto existing = getObject(kubectl, kBenchmarks, name); existing && runFinished(*existing)) {
    if (!parsed.has("--replace")) {
      std::cerr << "kubectl distbench run: DistBenchmark " << name << " exists and has "
                << existing->at("status").at("phase").as_string()
                << "; applying it again changes nothing. Give --replace to run it again, or "
                   "another metadata.name\n";
      return kExitUsage;
    }
    kubectl.output({"delete", kBenchmarks, name, "--wait=true"}, std::chrono::seconds(120));
  }
  kubectl.output({"apply", "-f", *file});
  std::cout << now() << " applied DistBenchmark " << name << "\n";
  if (!parsed.has("--wait")) return kExitOk;

  RunFollower follower;
  const Clock::time_point start = Clock::now();
  std::optional<Clock::time_point> finishedAt;
  for (;;) {
    const auto run = getObject(kubectl, kBenchmarks, name);
    if (!run) {
      std::cerr << "kubectl distbench run: DistBenchmark " << name << " was deleted\n";
      return kExitCluster;
    }
    for (const std::string& line : follower.observe(*run))
      std::cout << now() << " " << line << "\n";
    std::cout.flush();
    if (runFinished(*run) && !finishedAt) finishedAt = Clock::now();
    // What the operator writes after Succeeded (the stored report, the
    // comparison with spec.baseline) is waited for, but not forever.
    if (runSettled(*run) || (finishedAt && Clock::now() - *finishedAt > kSettleLimit)) {
      std::cout << "\n" << runSummary(*run, storedOutput(kubectl, *run));
      return runExitCode(*run);
    }
    const auto waited = std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - start);
    if (!hasStatus(*run) && waited.count() >= operatorTimeout) {
      std::cerr
          << "kubectl distbench run: no operator has written " << name << "'s status in "
          << operatorTimeout << " s: is the distbench operator installed and watching "
          << "this namespace? (kubectl get pods -A -l app.kubernetes.io/name=distbench-operator)\n";
      return kExitCluster;
    }
    if (waited.count() >= timeout) {
      std::cerr << "kubectl distbench run: stopped following after " << timeout
                << " s; the run goes on (kubectl distbench get " << name << ")\n";
      return kExitTimeout;
    }
    std::this_thread::sleep_for(std::chrono::seconds(2));
  }
}

}  // namespace distbench::plugin
