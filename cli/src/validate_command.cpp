#include <iostream>

#include "distbench/api/benchmark_spec.h"
#include "distbench/api/pod_security_profile.h"
#include "distbench/cli/arg_parser.h"
#include "distbench/cli/commands.h"
#include "distbench/cli/exit_codes.h"
#include "distbench/cli/spec_source.h"

namespace distbench::cli {

const char* const kValidateUsage = R"USAGE(usage: distbench validate [--allow-privileged-overrides] FILE...

Parse and validate DistBenchmark YAML files without running anything, as
the operator would: sizes whose products exceed the derived limits, and
spec.podTemplates security overrides that Pod Security "restricted" forbids
(root, Unconfined seccomp, added capabilities, privilege escalation), are
refused. Prints "FILE: valid (...)" for each good file. For a bad one,
prints "FILE: invalid DistBenchmark" and one "field: message" line per
problem on stderr.

  --allow-privileged-overrides  accept those security overrides, as an
                                operator started with the same flag does

exit status: 0 all files valid, 2 any file invalid or unreadable
)USAGE";

namespace {

std::string count(int n, const char* singular, const char* plural) {
  return std::to_string(n) + " " + (n == 1 ? singular : plural);
}

}  // namespace

int validateCommand(const std::vector<std::string>& args) {
  ParsedArgs parsed = ArgParser({{api::kAllowPrivilegedOverridesFlag}}).parse(args);
  const bool allowPrivileged = parsed.has(api::kAllowPrivilegedOverridesFlag);
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
    if (!allowPrivileged) {
      const std::vector<api::FieldError> refused = api::restrictedProfileViolations(*benchmark);
      if (!refused.empty()) {
        std::cerr << file << ": invalid DistBenchmark\n";
        for (const api::FieldError& field : refused) std::cerr << field.str() << "\n";
        status = kExitUsage;
        continue;
      }
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
