// kubectl-distbench: kubectl distbench <command>. kubectl runs it for
// `kubectl distbench ...` once it is on the PATH.
#include <iostream>
#include <string>
#include <vector>

#include "distbench/cli/arg_parser.h"
#include "distbench/plugin/commands.h"
#include "distbench/plugin/completion.h"
#include "distbench/plugin/exit_codes.h"
#include "distbench/plugin/kubectl_flags.h"
#include "distbench/report/report.h"

namespace distbench::plugin {

const char* const kMainUsage =
    R"(usage: kubectl distbench [kubectl flags] COMMAND [args]

distbench on a cluster, through kubectl (your kubeconfig, context,
namespace and credentials, auth plugins included):

  run -f SPEC.yaml [--wait]   apply a DistBenchmark; --wait follows it (phase,
                              progress, restarts) to its end and prints the
                              master's table and the verdict
  get NAME                    a run's state, table, bottleneck and verdict; or a
                              schedule's last run, kept runs and baseline
  list [-A]                   the runs and schedules of the namespace
  report NAME [-o PAGE.html]  the HTML page of a run's stored report (a
                              schedule's: the trend over its kept runs)
  diff BASE TEST              two runs' reports compared row by row
  predict NAME --bandwidth R  a run's rows at another link speed or size
  logs NAME [--rank trainer3] a rank's log, across gang restarts

Each command's --help has its flags and examples.

exit status: 0 done, 1 the run Failed (report, diff: a regression over
--threshold), 2 bad command line or spec, 3 run --wait: a regression
against the baseline, 4 the cluster: kubectl missing, distbench's CRDs not
installed, no operator, refused by RBAC, not found; 5 run --wait --timeout

examples:
  kubectl distbench run -f examples/small.yaml --wait
  kubectl distbench report small                # writes small.html
  kubectl distbench -n team-a list
)";

}  // namespace distbench::plugin

int main(int argc, char** argv) {
  using namespace distbench::plugin;
  const SplitArgs split = splitKubectlFlags(std::vector<std::string>(argv + 1, argv + argc));
  std::vector<std::string> args = split.rest;
  if (args.empty()) {
    std::cerr << kMainUsage << kKubectlFlagsHelp;
    return kExitUsage;
  }
  const std::string command = args.front();
  args.erase(args.begin());
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << kMainUsage << kKubectlFlagsHelp;
    return kExitOk;
  }
  if (command == "--version" || command == "version") {
    std::cout << "kubectl-distbench " << DISTBENCH_VERSION << "\n";
    return kExitOk;
  }
  const Kubectl kubectl(Kubectl::findBinary(), split.kubectl);
  if (command == "__complete") return complete(kubectl, args);

  int (*handler)(const Kubectl&, const std::vector<std::string>&) = nullptr;
  if (command == "run") handler = runCommand;
  if (command == "get") handler = getCommand;
  if (command == "list") handler = listCommand;
  if (command == "report") handler = reportCommand;
  if (command == "diff") handler = diffCommand;
  if (command == "predict") handler = predictCommand;
  if (command == "logs") handler = logsCommand;
  if (!handler) {
    std::cerr << "kubectl distbench: unknown command '" << command
              << "'\nsee 'kubectl distbench --help'\n";
    return kExitUsage;
  }
  try {
    return handler(kubectl, args);
  } catch (const distbench::cli::UsageError& error) {
    std::cerr << "kubectl distbench " << command << ": " << error.what() << "\n"
              << "see 'kubectl distbench " << command << " --help'\n";
    return kExitUsage;
  } catch (const KubectlError& error) {
    std::cerr << "kubectl distbench " << command << ": " << error.what() << "\n";
    return kExitCluster;
  } catch (const distbench::report::ReportError& error) {
    std::cerr << "kubectl distbench " << command << ": " << error.what() << "\n";
    return kExitCluster;
  } catch (const std::exception& error) {
    // Not a run's failure (1 means that): what kubectl returned could not
    // be read, or the cluster answered what no operator writes.
    std::cerr << "kubectl distbench " << command << ": " << error.what() << "\n";
    return kExitCluster;
  }
}
