// `distbench run`: a whole benchmark as local processes on 127.0.0.1, wired
// by the same renderer the operator uses.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "distbench/cli/local_run/link_spec.h"
#include "distbench/cli/spec_source.h"

namespace distbench::cli {

struct RunSettings {
  SpecSource source;
  std::string workerBinary;  // empty: distbench-worker beside this executable
  bool writeReport = true;
  std::string reportPath;    // empty: "<name>-report.json" in the current directory
  std::string dumpStateDir;  // empty: no --dump-state
  // Without --prometheus-sd no scraper watches a local run, so nothing is
  // lost by exiting at once; with it, long enough for the last scrapes at
  // the shipped config's 2 s interval. --metrics-linger overrides either.
  int metricsLingerSeconds = 0;
  std::string prometheusSdPath;              // --prometheus-sd; empty: none
  std::string metricsAddress = "127.0.0.1";  // --metrics-address, an IPv4 address
  std::chrono::milliseconds timeout{std::chrono::hours(1)};
  std::chrono::milliseconds gracePeriod{std::chrono::seconds(5)};
  // --links / --slow parsed (empty = not given), so bad text is a usage
  // error before anything starts; each keeps its text as given.
  LinkSpec links;
  SlowSpec slow;
  bool cleanUp = false;  // --clean-up: remove stale sandboxes and exit
  bool help = false;
};

// Throws UsageError naming the offending flag.
RunSettings parseRunArgs(const std::vector<std::string>& args);

// The directory of the running executable (/proc/self/exe), for finding
// distbench-worker next to it.
std::string executableDirectory();

}  // namespace distbench::cli
