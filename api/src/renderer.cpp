#include "distbench/api/renderer.h"

#include <stdexcept>

#include "distbench/api/object_names.h"
#include "distbench/api/rank_layout.h"
#include "distbench/api/spec_validation.h"
#include "distbench/api/spec_yaml.h"

namespace distbench::api {

namespace {

// The spec with RenderOptions' overrides applied: what the config file says,
// and what every rank's environment is built from, so the two cannot differ.
DistBenchmark resolve(const DistBenchmark& benchmark, const RenderOptions& options) {
  DistBenchmark b = benchmark;
  RuntimeSpec& rt = b.spec.runtime;
  if (options.masterPort != 0) rt.masterPort = options.masterPort;
  if (!options.metricsPorts.empty()) {
    const auto ranks = static_cast<std::size_t>(worldSize(b.spec));
    if (options.metricsPorts.size() != ranks) {
      throw std::invalid_argument("need one metrics port per rank: " + std::to_string(ranks) +
                                  " ranks, " + std::to_string(options.metricsPorts.size()) +
                                  " ports");
    }
    rt.metricsPort = options.metricsPorts[masterRank()];
  }
  if (options.metricsLingerSeconds) rt.metricsLingerSeconds = *options.metricsLingerSeconds;
  // The config writes every default out, this one included where it applies
  // (gpusPerTrainer is the one place that defaults it).
  if (rt.device == Device::CUDA) rt.gpusPerRank = gpusPerTrainer(rt);
  // No rank reads spec.local: distbench run acts on it before any starts, a cluster ignores it.
  b.spec.local.reset();
  return b;
}

RankProcess rankProcess(const DistBenchmark& b, const RenderOptions& options, Role role,
                        int roleIndex, int rank) {
  const DistBenchmarkSpec& s = b.spec;
  const std::string& name = b.metadata.name;
  const std::string masterAddr = options.masterAddr.empty()
                                     ? masterServiceName(name) + "." + b.metadata.namespace_ + ".svc"
                                     : options.masterAddr;
  const int metricsPort =
      options.metricsPorts.empty() ? s.runtime.metricsPort : options.metricsPorts[rank];

  RankProcess p;
  p.name = podName(name, role, roleIndex);
  p.rankLabel = rankLabel(s.topology, rank);
  p.role = role;
  p.rank = rank;
  p.roleIndex = roleIndex;
  p.env = {
      {kEnvRank, std::to_string(rank)},
      {kEnvWorldSize, std::to_string(worldSize(s))},
      {kEnvMasterAddr, masterAddr},
      {kEnvMasterPort, std::to_string(s.runtime.masterPort)},
      {kEnvRole, toString(role)},
      {kEnvRoleIndex, std::to_string(roleIndex)},
      {kEnvNumPs, std::to_string(s.topology.parameterServers)},
      {kEnvNumTrainers, std::to_string(s.topology.trainers)},
      {kEnvConfig, options.configPath},
      {kEnvBenchmarkName, name},
      {kEnvMetricsPort, std::to_string(metricsPort)},
      {kEnvMetricsLinger, std::to_string(s.runtime.metricsLingerSeconds)},
  };
  if (role == Role::Trainer) {
    // Trainers are the ranks that use GPUs; in a pod each is alone on its node.
    const int localRank = options.ranksShareHost ? roleIndex : 0;
    const int localWorldSize = options.ranksShareHost ? s.topology.trainers : 1;
    p.env.push_back({kEnvLocalRank, std::to_string(localRank)});
    p.env.push_back({kEnvLocalWorldSize, std::to_string(localWorldSize)});
  }
  if (!options.metricsAddress.empty()) p.env.push_back({kEnvMetricsAddress, options.metricsAddress});
  if (options.progress) p.env.push_back({kEnvProgress, "1"});
  if (!options.runKeyFile.empty()) p.env.push_back({kEnvRunKeyFile, options.runKeyFile});
  p.command = {options.workerBinary, "--config", options.configPath};
  // Only the master listens for rendezvous (it hosts the TCPStore).
  if (role == Role::Master) p.ports.push_back(s.runtime.masterPort);
  p.ports.push_back(metricsPort);
  return p;
}

}  // namespace

RenderedBenchmark render(const DistBenchmark& benchmark, const RenderOptions& options) {
  validateOrThrow(benchmark);
  const DistBenchmark resolved = resolve(benchmark, options);
  // Again, for the overrides: a port out of range must not reach a worker.
  validateOrThrow(resolved);
  const TopologySpec& t = resolved.spec.topology;

  RenderedBenchmark rendered;
  rendered.configYaml = toYaml(resolved);
  rendered.ranks.reserve(worldSize(resolved.spec));
  rendered.ranks.push_back(rankProcess(resolved, options, Role::Master, 0, masterRank()));
  for (int i = 0; i < t.parameterServers; ++i) {
    rendered.ranks.push_back(
        rankProcess(resolved, options, Role::ParameterServer, i, parameterServerRank(i)));
  }
  for (int i = 0; i < t.trainers; ++i) {
    rendered.ranks.push_back(rankProcess(resolved, options, Role::Trainer, i, trainerRank(t, i)));
  }
  return rendered;
}

}  // namespace distbench::api
