#include <yaml-cpp/yaml.h>

#include <chrono>
#include <iostream>
#include <optional>

#include "distbench/api/benchmark_spec.h"
#include "distbench/api/pod_security_profile.h"
#include "distbench/api/schedule_spec.h"
#include "distbench/api/spec_error.h"
#include "distbench/cli/arg_parser.h"
#include "distbench/cli/commands.h"
#include "distbench/cli/exit_codes.h"
#include "distbench/cli/spec_source.h"

namespace distbench::cli {

const char* const kValidateUsage = R"USAGE(usage: distbench validate [--allow-privileged-overrides] FILE...

Parse and validate DistBenchmark and DistBenchmarkSchedule YAML (or JSON)
files without running anything, as the operator would: sizes whose products
exceed the derived limits, and spec.podTemplates security overrides that Pod
Security "restricted" forbids (root, Unconfined seccomp, added capabilities,
privilege escalation), are refused. A schedule's cron expression and time
zone are checked, and its template as the DistBenchmark each run will be
(errors name spec.template.spec.<field>). Prints "FILE: valid (...)" for each
good file, for a schedule with its next run. For a bad one, prints
"FILE: invalid KIND" and one "field: message" line per problem on stderr.

  --allow-privileged-overrides  accept those security overrides, as an
                                operator started with the same flag does

exit status: 0 all files valid, 2 any file invalid or unreadable
)USAGE";

namespace {

std::string count(int n, const char* singular, const char* plural) {
  return std::to_string(n) + " " + (n == 1 ? singular : plural);
}

std::string ranks(const api::TopologySpec& topology) {
  return count(topology.trainers, "trainer", "trainers") + ", " +
         count(topology.parameterServers, "parameter server", "parameter servers");
}

// Whether the file is a DistBenchmarkSchedule; anything else (unreadable,
// not YAML, another kind) goes the DistBenchmark way, whose errors say why.
bool isSchedule(const std::string& file) {
  try {
    const YAML::Node root = YAML::LoadFile(file);
    return root.IsMap() && root["kind"] && root["kind"].IsScalar() &&
           root["kind"].Scalar() == api::kScheduleKind;
  } catch (const std::exception&) {
    return false;
  }
}

void printInvalid(const std::string& file, const char* kind,
                  const std::vector<api::FieldError>& errors) {
  std::cerr << file << ": invalid " << kind << "\n";
  for (const api::FieldError& field : errors) std::cerr << field.str() << "\n";
}

bool validateSchedule(const std::string& file, bool allowPrivileged) {
  std::optional<api::DistBenchmarkSchedule> schedule;
  try {
    schedule = api::loadDistBenchmarkScheduleFile(file);
  } catch (const api::SpecError& error) {
    printInvalid(file, api::kScheduleKind, error.errors());
    return false;
  } catch (const std::exception& error) {
    std::cerr << "distbench: " << error.what() << "\n";
    return false;
  }
  const auto now = std::chrono::system_clock::now();
  if (!allowPrivileged) {
    std::vector<api::FieldError> refused =
        api::restrictedProfileViolations(api::scheduledRun(*schedule, now));
    for (api::FieldError& e : refused) e.field = "spec.template." + e.field;
    if (!refused.empty()) {
      printInvalid(file, api::kScheduleKind, refused);
      return false;
    }
  }
  const api::ScheduleSpec& spec = schedule->spec;
  const std::optional<api::SystemTime> next = spec.timing->cron.next(now, spec.timing->zone);
  std::cout << file << ": valid (" << api::kScheduleKind << " " << schedule->metadata.name
            << ": \"" << spec.schedule << "\" in " << spec.timeZone << ", next run "
            << (spec.suspend ? "suspended" : next ? api::formatRfc3339(*next) : "none within 5 years")
            << "; " << ranks(spec.template_.spec.topology) << ")\n";
  return true;
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
    if (isSchedule(file)) {
      if (!validateSchedule(file, allowPrivileged)) status = kExitUsage;
      continue;
    }
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
        printInvalid(file, "DistBenchmark", refused);
        status = kExitUsage;
        continue;
      }
    }
    std::cout << file << ": valid (" << benchmark->kind << " " << benchmark->metadata.name << ": "
              << ranks(benchmark->spec.topology) << ")\n";
  }
  return status;
}

}  // namespace distbench::cli
