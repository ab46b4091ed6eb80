#include <iostream>

#include "arg_parser.h"
#include "commands.h"
#include "distbench/api/benchmark_spec.h"
#include "exit_codes.h"
#include "spec_source.h"

namespace distbench::cli {

const char* const kValidateUsage = R"USAGE(usage: distbench validate FILE...

Parse and validate DistBenchmark YAML files without running anything.
Prints "FILE: valid (...)" for each good file. For a bad one, prints
"FILE: invalid DistBenchmark" and one "field: message" line per problem on
stderr.

exit status: 0 all files valid, 2 any file invalid or unreadable
)USAGE";

namespace {

std::string count(int n, const char* singular, const char* plural) {
  return std::to_string(n) + " " + (n == 1 ? singular : plural);
}

}  // namespace

int validateCommand(const std::vector<std::string>& args) {
  ParsedArgs parsed = ArgParser({}).parse(args);
  if (parsed.has("--help")) {
    std::cout << kValidateUsage;
    return kExitOk;
  }
  if (parsed.positionals().empty()) throw UsageError("missing FILE");

  int status = kExitOk;
  for (const std::string& file : parsed.positionals()) {
    SpecSource source;
    source.file = file;
    std::optional<api::DistBenchmark> benchmark = loadSpec(source, std::cerr);
    if (!benchmark) {
      status = kExitUsage;
      continue;
    }
    const api::TopologySpec& topology = benchmark->spec.topology;
    std::cout << file << ": valid (" << benchmark->kind << " " << benchmark->metadata.name << ": "
              << count(topology.trainers, "trainer", "trainers") << ", "
              << count(topology.parameterServers, "parameter server", "parameter servers")
              << ")\n";
  }
  return status;
}

}  // namespace distbench::cli
