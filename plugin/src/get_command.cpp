// get and list: finished runs' tables and verdicts, schedules' last runs
// and trend verdicts, from the objects' status as the operator writes it.
#include <iostream>

#include "distbench/cli/arg_parser.h"
#include "distbench/plugin/cluster_objects.h"
#include "distbench/plugin/cluster_reports.h"
#include "distbench/plugin/commands.h"
#include "distbench/plugin/exit_codes.h"
#include "distbench/plugin/kubectl_error.h"
#include "distbench/plugin/run_view.h"

namespace distbench::plugin {

const char* const kGetHelp = R"(usage: kubectl distbench get NAME

A run (DistBenchmark): its phase, gang and ranks, and once finished the
master's rows (p50 .. p95 and rate, from status.results), the bottleneck,
the verdict against its baseline and a Fabric run's suspects. A schedule
(DistBenchmarkSchedule; or schedule/NAME): its cron, next run, last run
with its verdict, its kept runs and its pooled baseline.

examples:
  kubectl distbench get small
  kubectl distbench -n team-a get schedule/nightly-canary
)";

const char* const kListHelp = R"(usage: kubectl distbench list [--all-namespaces]

Every run (NAME PHASE GANG READY P50 VERDICT) and schedule (SCHEDULE CRON
LAST RUN P50 VERDICT) of the namespace, or of all of them.
)";

int getCommand(const Kubectl& kubectl, const std::vector<std::string>& args) {
  const cli::ParsedArgs parsed = cli::ArgParser(std::vector<cli::FlagSpec>{}).parse(args);
  if (parsed.has("--help")) {
    std::cout << kGetHelp;
    return kExitOk;
  }
  if (parsed.positionals().size() != 1) throw cli::UsageError("expected one NAME");
  std::string name = parsed.positionals()[0];
  const bool scheduleNamed = name.rfind("schedule/", 0) == 0;
  if (scheduleNamed) name = name.substr(9);
  if (!scheduleNamed) {
    if (auto run = getObject(kubectl, kBenchmarks, name)) {
      std::cout << runSummary(*run, storedOutput(kubectl, *run));
      return kExitOk;
    }
  }
  if (auto schedule = getObject(kubectl, kSchedules, name)) {
    std::cout << scheduleSummary(*schedule);
    return kExitOk;
  }
  std::cerr << "kubectl distbench get: no DistBenchmark"
            << (scheduleNamed ? "Schedule " : " or DistBenchmarkSchedule ") << name << "\n";
  return kExitCluster;
}

int listCommand(const Kubectl& kubectl, const std::vector<std::string>& args) {
  const cli::ParsedArgs parsed =
      cli::ArgParser({{"--all-namespaces", false}, {"-A", false}}).parse(args);
  if (parsed.has("--help")) {
    std::cout << kListHelp;
    return kExitOk;
  }
  if (!parsed.positionals().empty()) throw cli::UsageError("list takes no NAME (see get)");
  std::vector<std::string> extra;
  if (parsed.has("--all-namespaces") || parsed.has("-A")) extra.push_back("--all-namespaces");
  const auto runs = listObjects(kubectl, kBenchmarks, extra);
  std::cout << runListHeader();
  for (const auto& run : runs) std::cout << runListLine(run);
  const auto schedules = listObjects(kubectl, kSchedules, extra);
  if (!schedules.empty()) {
    std::cout << "\n" << scheduleListHeader();
    for (const auto& schedule : schedules) std::cout << scheduleListLine(schedule);
  }
  return kExitOk;
}

}  // namespace distbench::plugin
