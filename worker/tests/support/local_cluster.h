// Test fixture: runs a whole benchmark as real distbench-worker processes on
// loopback, wired exactly as `distbench run` wires them (same renderer, same
// local wiring), but under the test's control: ranks can be left out or
// killed, and nobody tears the others down, so the workers' own failure
// handling is what gets observed.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "distbench/process/child_process.h"
#include "distbench/process/temp_dir.h"

namespace distbench::worker::testing {

class LocalCluster {
 public:
  // `masterEnv` is added to the master's environment only (as the operator
  // sets some variables on the master pod alone). Without `reportFile` the
  // master gets no --report, as in a pod. `rankEnv[r]` replaces variables
  // of rank r's rendered environment (one rank in a node of its own).
  explicit LocalCluster(const api::DistBenchmark& benchmark, std::set<int> skipRanks = {},
                        int metricsLingerSeconds = 0,
                        const process::ChildProcess::Env& masterEnv = {}, bool reportFile = true,
                        const std::map<int, process::ChildProcess::Env>& rankEnv = {});
  ~LocalCluster();

  // Waits until every started rank has exited or `limit` passes, collecting
  // output. Returns the time it took.
  std::chrono::milliseconds waitAll(std::chrono::seconds limit);
  // Collects output until `needle` shows up in `rank`'s output.
  bool waitForOutput(int rank, const std::string& needle, std::chrono::seconds limit);
  void kill(int rank, int signal);
  // Collects output until `rank` has exited; returns how long that took, or
  // nothing if it still runs after `limit`.
  std::optional<std::chrono::milliseconds> waitExit(int rank, std::chrono::milliseconds limit);

  bool started(int rank) const { return children_[rank].has_value(); }
  std::optional<process::ExitStatus> exitStatus(int rank) const;
  // stdout and stderr as they came.
  const std::string& output(int rank) const { return output_[rank]; }
  // stdout alone, as a container log of stdout would hold it.
  const std::string& stdoutOf(int rank) const { return stdout_[rank]; }
  std::string allOutput() const;
  const std::string& stateDir() const { return stateDir_; }
  const std::string& reportPath() const { return reportPath_; }
  int worldSize() const { return static_cast<int>(output_.size()); }
  // The rendezvous store's port on 127.0.0.1.
  int masterPort() const { return masterPort_; }
  // The run key every rank was given (the file `distbench run` would write).
  std::string runKey() const;

 private:
  void pump(std::chrono::milliseconds wait);

  process::TempDir dir_;
  std::string stateDir_;
  std::string reportPath_;
  int masterPort_ = 0;
  std::vector<std::optional<process::ChildProcess>> children_;
  std::vector<std::string> output_;
  std::vector<std::string> stdout_;
};

}  // namespace distbench::worker::testing
