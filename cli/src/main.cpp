// distbench: validate, render and run DistBenchmarks from the command line,
// and compare the reports they write.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "distbench/cli/arg_parser.h"
#include "distbench/cli/commands.h"
#include "distbench/cli/exit_codes.h"

namespace distbench::cli {

const char* const kMainUsage = R"USAGE(usage: distbench [--version] [--help] COMMAND [ARGS]

Benchmark distributed PyTorch training (DDP + RPC parameter servers).

commands:
  validate FILE...               check DistBenchmark YAML files
  render FILE | --preset NAME    print the per-rank processes and config
  run FILE | --preset NAME       run the benchmark as local processes
  diff BASE TEST                 compare two reports: percentiles, median CI
  report RUN -o PAGE.html        one self-contained HTML page of charts of a
                                 report, optionally compared with --baseline
  predict RUN --bandwidth RATE   a run's p50 times at another link speed or
                                 world size (alpha-beta model)

`distbench COMMAND --help` describes a command's flags.
)USAGE";

}  // namespace distbench::cli

int main(int argc, char** argv) {
  using namespace distbench::cli;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << kMainUsage;
    return kExitUsage;
  }
  const std::string command = args.front();
  args.erase(args.begin());

  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << kMainUsage;
    return kExitOk;
  }
  if (command == "--version") {
    std::cout << "distbench " << DISTBENCH_VERSION << "\n";
    return kExitOk;
  }

  int (*handler)(const std::vector<std::string>&) = nullptr;
  if (command == "validate") handler = validateCommand;
  if (command == "render") handler = renderCommand;
  if (command == "run") handler = runCommand;
  if (command == "diff") handler = [](const std::vector<std::string>& a) { return diffCommand(a); };
  if (command == "report") {
    handler = [](const std::vector<std::string>& a) { return reportCommand(a); };
  }
  if (command == "predict") {
    handler = [](const std::vector<std::string>& a) { return predictCommand(a); };
  }
  if (!handler) {
    if (!command.empty() && command[0] == '-') {
      std::cerr << "distbench: unknown flag " << command << "\n";
    } else {
      std::cerr << "distbench: unknown command '" << command << "'\n";
    }
    std::cerr << "see 'distbench --help'\n";
    return kExitUsage;
  }

  try {
    return handler(args);
  } catch (const UsageError& error) {
    std::cerr << "distbench " << command << ": " << error.what() << "\n"
              << "see 'distbench " << command << " --help'\n";
    return kExitUsage;
  } catch (const std::exception& error) {
    std::cerr << "distbench " << command << ": " << error.what() << "\n";
    return kExitFailed;
  }
}
