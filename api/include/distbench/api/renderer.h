// Turns a DistBenchmark into one process description per rank: what the
// operator makes into pods and `distbench run` into local processes. Nothing
// here knows about either: addresses and paths come in through RenderOptions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "distbench/api/role.h"
// The names of the variables RankProcess::env sets; included here so that
// every user of the renderer has them.
#include "distbench/api/worker_env.h"

namespace distbench::api {

struct EnvVar {
  std::string name;
  std::string value;
};

struct RankProcess {
  std::string name;       // <benchmark>-master-0, <benchmark>-ps-<i>, <benchmark>-trainer-<i>
  std::string rankLabel;  // master, ps0.., trainer0..: how logs and errors name it
  Role role;
  int rank;  // global rank: 0 master, 1..P ps, P+1..P+T trainers
  int roleIndex;
  std::vector<EnvVar> env;
  std::vector<std::string> command;  // argv, command[0] is the worker binary
  std::vector<int> ports;            // container ports (master: store, all: metrics)
};

struct RenderOptions {
  // Where every rank finds the rendezvous store. Empty: the master Service,
  // "<name>-master.<namespace>.svc".
  std::string masterAddr;
  std::string workerBinary = "distbench-worker";
  std::string configPath = "/etc/distbench/config.yaml";

  // For ranks that share one host (`distbench run`, the worker's cluster
  // tests), where the spec's fixed ports would collide. The renderer puts
  // each override into the config file as well as into the environment, so
  // a rank sees one value whichever it reads. The operator sets none.
  int masterPort = 0;                       // 0: spec.runtime.masterPort
  // Empty: spec.runtime.metricsPort for every rank. Else one port per rank,
  // indexed by global rank; the config, which all ranks share, carries the
  // master's. render() throws std::invalid_argument on a wrong count.
  std::vector<int> metricsPorts;
  std::optional<int> metricsLingerSeconds;  // unset: the spec's
  // The address /metrics listens on (DISTBENCH_METRICS_ADDRESS). Empty: every
  // interface, what pods need; ranks on one host need no more than loopback.
  std::string metricsAddress;
  bool progress = false;                    // sets DISTBENCH_PROGRESS=1
  // Every rank runs on one host (`distbench run`), so the trainers share its
  // GPUs: LOCAL_RANK is the trainer index and LOCAL_WORLD_SIZE the number of
  // trainers. False, as for pods (one rank each): 0 and 1.
  bool ranksShareHost = false;
  // Where every rank reads the run key (DISTBENCH_RUN_KEY_FILE). Empty: none.
  std::string runKeyFile;
};

struct RenderedBenchmark {
  std::string configYaml;  // the resolved spec every rank reads
  std::vector<RankProcess> ranks;
};

RenderedBenchmark render(const DistBenchmark& benchmark, const RenderOptions& options = {});

}  // namespace distbench::api
