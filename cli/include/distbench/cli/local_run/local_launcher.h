// Runs a rendered benchmark as local processes and supervises them like a
// gang: DDP cannot go on with a rank missing, so the first rank that fails
// ends the run, and no path out of here leaves a rank running.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "distbench/api/renderer.h"
#include "distbench/cli/local_run/run_output.h"
#include "distbench/process/child_process.h"

namespace distbench::cli {

struct LaunchOptions {
  // From SIGTERM to SIGKILL for ranks still running when the run ends.
  std::chrono::milliseconds gracePeriod{5000};
  // The whole run, from the first spawn: the last guard against a hang.
  std::chrono::milliseconds timeout{std::chrono::hours(1)};
  // Readable when distbench is asked to stop; each byte is a signal number
  // (see SignalWatcher). -1: nothing to watch.
  int interruptFd = -1;
  // How many of a failed rank's last stderr lines to repeat with its failure.
  std::size_t failureTailLines = 20;
  // Host in the "metrics http://HOST:PORT/metrics" part of the start lines.
  std::string metricsHost = "127.0.0.1";
  // Per global rank: the network namespace and cgroup it starts in
  // (`distbench run --links/--slow`). Absent: where distbench runs.
  std::map<int, process::SpawnOptions> spawnOptions;
};

enum class LaunchOutcome {
  Succeeded,    // every rank exited 0
  RankFailed,   // a rank exited non-zero or was killed by a signal
  StartFailed,  // a rank's program could not be executed
  TimedOut,     // LaunchOptions::timeout passed
  Interrupted,  // a signal arrived on interruptFd
};

struct LaunchResult {
  LaunchOutcome outcome = LaunchOutcome::Succeeded;
  int exitCode = 0;          // what distbench should exit with: 0, 1, 128+signal
  std::string failedRank;    // rank label, for RankFailed and StartFailed
  int interruptSignal = 0;   // for Interrupted
  // Per global rank that was started and reaped: its user+system CPU seconds.
  std::map<int, double> cpuSeconds;
};

class LocalLauncher {
 public:
  // Each rank runs rank.command with this process's environment plus
  // rank.env. A Master rank's stdout is the result table and goes to
  // RunOutput::result; all other output is logged with the rank's label.
  LocalLauncher(std::vector<api::RankProcess> ranks, RunOutput& output, LaunchOptions options);
  LocalLauncher(const LocalLauncher&) = delete;
  LocalLauncher& operator=(const LocalLauncher&) = delete;

  // Blocks until every rank has exited (or been killed) and reaped.
  LaunchResult run();

 private:
  std::vector<api::RankProcess> specs_;
  RunOutput& output_;
  LaunchOptions options_;
};

}  // namespace distbench::cli
