#include <yaml-cpp/yaml.h>

#include <iostream>

#include "distbench/api/renderer.h"
#include "distbench/cli/arg_parser.h"
#include "distbench/cli/commands.h"
#include "distbench/cli/exit_codes.h"
#include "distbench/cli/spec_source.h"

namespace distbench::cli {

const char* const kRenderUsage = R"USAGE(usage: distbench render FILE | --preset NAME [flags]

Print what the renderer makes of a DistBenchmark: one YAML document per rank
(name, rank label, rank, role, role index, env, command, ports), then the
config file every rank reads. The operator and `distbench run` use the same
renderer, so this is exactly what they would start.

flags:
  --preset NAME        a built-in benchmark instead of FILE (default, tutorial)
  --master-addr ADDR   MASTER_ADDR for every rank
                       (default: the master Service, <name>-master.<namespace>.svc)
  --worker PATH        the worker binary in each command (default: distbench-worker)
  --config-path PATH   where ranks find the config file
                       (default: /etc/distbench/config.yaml, the ConfigMap mount)

exit status: 0 rendered, 2 bad command line or spec
)USAGE";

namespace {

std::string renderRank(const api::RankProcess& rank) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << rank.name;
  out << YAML::Key << "rankLabel" << YAML::Value << rank.rankLabel;
  out << YAML::Key << "rank" << YAML::Value << rank.rank;
  out << YAML::Key << "role" << YAML::Value << api::toString(rank.role);
  out << YAML::Key << "roleIndex" << YAML::Value << rank.roleIndex;
  out << YAML::Key << "env" << YAML::Value << YAML::BeginSeq;
  for (const api::EnvVar& var : rank.env) {
    // Quoted so that "0" stays a string, as Kubernetes requires of env values.
    out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << var.name << YAML::Key
        << "value" << YAML::Value << YAML::DoubleQuoted << var.value << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::Key << "command" << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (const std::string& arg : rank.command) out << arg;
  out << YAML::EndSeq;
  out << YAML::Key << "ports" << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (int port : rank.ports) out << port;
  out << YAML::EndSeq;
  out << YAML::EndMap;
  return out.c_str();
}

}  // namespace

int renderCommand(const std::vector<std::string>& args) {
  ParsedArgs parsed = ArgParser({{"--preset", true},
                                 {"--master-addr", true},
                                 {"--worker", true},
                                 {"--config-path", true}})
                          .parse(args);
  if (parsed.has("--help")) {
    std::cout << kRenderUsage;
    return kExitOk;
  }
  SpecSource source = specSourceFrom(parsed);
  std::optional<api::DistBenchmark> benchmark = loadSpec(source, std::cerr);
  if (!benchmark) return kExitUsage;

  api::RenderOptions options;
  if (auto addr = parsed.value("--master-addr")) options.masterAddr = *addr;
  if (auto worker = parsed.value("--worker")) options.workerBinary = *worker;
  if (auto path = parsed.value("--config-path")) options.configPath = *path;
  api::RenderedBenchmark rendered = api::render(*benchmark, options);

  for (const api::RankProcess& rank : rendered.ranks) {
    std::cout << "--- # rank " << rank.rank << ": " << rank.rankLabel << "\n"
              << renderRank(rank) << "\n";
  }
  std::cout << "--- # config file " << options.configPath << "\n";
  std::string config = rendered.configYaml;
  // toYaml may start its own document; one separator is enough.
  if (config.rfind("---", 0) == 0) config.erase(0, config.find('\n') + 1);
  std::cout << config;
  if (!config.empty() && config.back() != '\n') std::cout << "\n";
  return kExitOk;
}

}  // namespace distbench::cli
