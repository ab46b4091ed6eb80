#include "distbench/worker/common/worker_identity.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "distbench/api/benchmark_spec.h"
#include "distbench/api/run_key.h"
#include "distbench/api/worker_env.h"

namespace distbench::worker {
namespace {

std::string requireEnv(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') {
    throw std::runtime_error(std::string("environment variable ") + name + " is not set");
  }
  return v;
}

std::string optionalEnv(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return (v == nullptr || *v == '\0') ? fallback : std::string(v);
}

int toInt(const char* name, const std::string& text, int minimum) {
  size_t used = 0;
  long value = 0;
  try {
    value = std::stol(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || value < minimum || value > 1 << 30) {
    throw std::runtime_error(std::string("environment variable ") + name + "=" + text +
                             ": must be an integer ≥ " + std::to_string(minimum));
  }
  return static_cast<int>(value);
}

int intEnv(const char* name, int minimum) { return toInt(name, requireEnv(name), minimum); }

api::Role parseRole(const std::string& text) {
  if (text == "master") return api::Role::Master;
  if (text == "ps") return api::Role::ParameterServer;
  if (text == "trainer") return api::Role::Trainer;
  throw std::runtime_error(std::string("environment variable ") + api::kEnvRole + "=" + text +
                           ": must be one of master, ps, trainer");
}

bool isLoopback(const std::string& host) {
  return host == "localhost" || host.rfind("127.", 0) == 0 || host == "::1";
}

// The run key's file, as a Secret volume or `distbench run` writes it; one
// trailing newline (a hand-made Secret's) is not part of the key.
std::string runKeyFromFile(const std::string& path) {
  const std::string where = std::string("environment variable ") + api::kEnvRunKeyFile + "=" + path;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(where + ": cannot read the file");
  std::string key(256, '\0');
  in.read(key.data(), static_cast<std::streamsize>(key.size()));
  key.resize(static_cast<size_t>(in.gcount()));
  while (!key.empty() && (key.back() == '\n' || key.back() == '\r')) key.pop_back();
  if (!api::isValidRunKey(key)) {
    throw std::runtime_error(where + ": the file must hold 32 to 128 characters of [0-9A-Za-z_-]");
  }
  return key;
}

}  // namespace

api::TopologySpec makeTopology(int numParameterServers, int numTrainers) {
  api::TopologySpec topology;
  topology.parameterServers = numParameterServers;
  topology.trainers = numTrainers;
  return topology;
}

api::TopologySpec WorkerIdentity::topology() const {
  return makeTopology(numParameterServers, numTrainers);
}

std::string describeRank(int numParameterServers, int numTrainers, int globalRank) {
  return api::rankLabel(makeTopology(numParameterServers, numTrainers), globalRank) + " (rank " +
         std::to_string(globalRank) + ")";
}

std::string WorkerIdentity::label() const {
  return describeRank(numParameterServers, numTrainers, rank);
}

WorkerIdentity identityFromEnvironment() {
  WorkerIdentity id;
  id.role = parseRole(requireEnv(api::kEnvRole));
  id.rank = intEnv(api::kEnvRank, 0);
  // A master and one trainer: the smallest DDP or Collectives run.
  id.worldSize = intEnv(api::kEnvWorldSize, 2);
  id.roleIndex = intEnv(api::kEnvRoleIndex, 0);
  id.numParameterServers = intEnv(api::kEnvNumPs, 0);  // DDP and Collectives have none
  id.numTrainers = intEnv(api::kEnvNumTrainers, 1);
  id.masterAddr = requireEnv(api::kEnvMasterAddr);
  id.masterPort = intEnv(api::kEnvMasterPort, 1);
  id.configPath = optionalEnv(api::kEnvConfig, "");
  id.benchmarkName = optionalEnv(api::kEnvBenchmarkName, "distbench");
  id.metricsPort = toInt(api::kEnvMetricsPort, optionalEnv(api::kEnvMetricsPort, "0"), 0);
  id.metricsLingerSeconds =
      toInt(api::kEnvMetricsLinger, optionalEnv(api::kEnvMetricsLinger, "0"), 0);
  id.metricsAddress = optionalEnv(api::kEnvMetricsAddress, "0.0.0.0");
  // In a pod the downward API gives POD_IP; locally every rank is on loopback.
  std::string fallbackBind = "127.0.0.1";
  if (!isLoopback(id.masterAddr)) {
    char host[256] = {0};
    gethostname(host, sizeof(host) - 1);
    fallbackBind = host;
  }
  id.bindAddress = optionalEnv(api::kEnvPodIp, fallbackBind);
  if (const std::string keyFile = optionalEnv(api::kEnvRunKeyFile, ""); !keyFile.empty()) {
    id.runKey = runKeyFromFile(keyFile);
  }

  // In 64 bits: each count alone may be up to 2^30.
  const int64_t ranks =
      1 + static_cast<int64_t>(id.numParameterServers) + static_cast<int64_t>(id.numTrainers);
  if (id.worldSize != ranks) {
    throw std::runtime_error("environment variable WORLD_SIZE=" + std::to_string(id.worldSize) +
                             ": must be 1 + DISTBENCH_NUM_PS + DISTBENCH_NUM_TRAINERS = " +
                             std::to_string(ranks));
  }
  if (ranks > api::kMaxWorldSize) {
    throw std::runtime_error("environment variable WORLD_SIZE=" + std::to_string(id.worldSize) +
                             ": at most " + std::to_string(api::kMaxWorldSize) + " ranks");
  }
  if (id.rank >= id.worldSize) {
    throw std::runtime_error("environment variable RANK=" + std::to_string(id.rank) +
                             ": must be < WORLD_SIZE " + std::to_string(id.worldSize));
  }
  int roleCount = id.role == api::Role::Master            ? 1
                  : id.role == api::Role::ParameterServer ? id.numParameterServers
                                                          : id.numTrainers;
  if (id.roleIndex >= roleCount) {
    throw std::runtime_error(
        "environment variable DISTBENCH_ROLE_INDEX=" + std::to_string(id.roleIndex) +
        ": must be < " + std::to_string(roleCount) + " for role " + requireEnv(api::kEnvRole));
  }
  const api::TopologySpec topology = id.topology();
  int expectedRank = id.role == api::Role::Master ? api::masterRank()
                     : id.role == api::Role::ParameterServer
                         ? api::parameterServerRank(id.roleIndex)
                         : api::trainerRank(topology, id.roleIndex);
  if (expectedRank != id.rank) {
    throw std::runtime_error("environment variable RANK=" + std::to_string(id.rank) +
                             " does not match DISTBENCH_ROLE=" + requireEnv(api::kEnvRole) +
                             " DISTBENCH_ROLE_INDEX=" + std::to_string(id.roleIndex) +
                             " (expected rank " + std::to_string(expectedRank) + ")");
  }
  return id;
}

}  // namespace distbench::worker
