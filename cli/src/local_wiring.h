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
  std::string reportPath;         // appended as --report to the master; empty: none
  std::string dumpStateDir;       // appended as --dump-state to every rank; empty: none
};

// Overrides the port and linger variables, turns on progress lines
// (DISTBENCH_PROGRESS=1) and adds the flags. Throws std::invalid_argument
// when metricsPorts does not have one port per rank.
void wireForLocalRun(std::vector<api::RankProcess>& ranks, const LocalWiring& wiring);

// Sets name=value in the rank's env, replacing an earlier value.
void setEnv(api::RankProcess& rank, const std::string& name, const std::string& value);

}  // namespace distbench::cli
