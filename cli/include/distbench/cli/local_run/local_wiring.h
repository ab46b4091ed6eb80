// Adapts rendered ranks, written for pods that each own their ports, to one
// machine where every rank shares 127.0.0.1.
#pragma once

#include <string>
#include <vector>

#include "distbench/api/renderer.h"

namespace distbench::cli {

struct LocalWiring {
  int masterPort = 0;             // MASTER_PORT, the same for every rank
  std::vector<int> metricsPorts;  // DISTBENCH_METRICS_PORT, one per rank, in order
  int metricsLingerSeconds = 0;
  // DISTBENCH_METRICS_ADDRESS: ranks on one machine serve /metrics on
  // loopback unless asked otherwise (`distbench run --metrics-address`).
  std::string metricsAddress = "127.0.0.1";
  std::string reportPath;         // appended as --report to the master; empty: none
  std::string dumpStateDir;       // appended as --dump-state to every rank; empty: none
};

// Renders with the ports, linger, progress lines (DISTBENCH_PROGRESS=1) and
// ranksShareHost (the trainers' LOCAL_RANK and LOCAL_WORLD_SIZE count every
// trainer on this machine) as renderer options, so the config file carries the same ports as the
// environment, then adds the flags. `options` supplies the address, worker
// binary and config path. Throws std::invalid_argument when metricsPorts
// does not have one port per rank, and what api::render throws.
api::RenderedBenchmark renderForLocalRun(const api::DistBenchmark& benchmark,
                                         api::RenderOptions options, const LocalWiring& wiring);

// Appends --report to the master's command and --dump-state to every rank's.
void addLocalFlags(std::vector<api::RankProcess>& ranks, const LocalWiring& wiring);

// Writes a new run key (api/run_key.h) to `path`, the file that
// RenderOptions::runKeyFile names. Created with mode 0600, not chmod-ed
// after, so no other user of the machine may open it in between. False when
// the file exists already or cannot be written.
bool writeRunKeyFile(const std::string& path);

}  // namespace distbench::cli
