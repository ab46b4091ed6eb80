// Carries out a SandboxPlan: the run lock, the namespaces, veths, bridge and
// tbf qdiscs, and the CPU cgroups; hands each rank the fds its child needs
// (process::SpawnOptions), reads the counters after the run, and removes
// everything it made when it goes out of scope. Leftovers of runs that were
// SIGKILLed are removed by the next run's sweep (sweepStaleSandboxes).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "distbench/cli/local_run/cgroup_cpu.h"
#include "distbench/cli/local_run/run_lock.h"
#include "distbench/cli/local_run/sandbox_plan.h"
#include "distbench/cli/local_run/sandbox_stats.h"
#include "distbench/process/child_process.h"

namespace distbench::cli {

// The sandbox cannot be made here; what() says what failed and why, with
// the tool's own words. Nothing of the run has started.
struct SandboxRefused : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws SandboxRefused unless this process may make network namespaces
// (network) and a cpu cgroup (cpu), and `ip`/`tc` are installed.
void checkSandboxPrerequisites(bool network, bool cpu);

class LocalSandbox {
 public:
  // Locks, sweeps stale runs, then makes everything in `plan`. Throws
  // SandboxRefused; whatever was made by then is removed again.
  LocalSandbox(SandboxPlan plan, std::string lockDir = kRunLockDir);
  LocalSandbox(const LocalSandbox&) = delete;
  LocalSandbox& operator=(const LocalSandbox&) = delete;
  ~LocalSandbox();

  const SandboxPlan& plan() const { return plan_; }
  // The fds stay open until teardown; -1 where the rank has no namespace/cap.
  process::SpawnOptions spawnOptions(int rank) const;
  // tc counters of both directions and cgroup throttling, read now.
  std::map<int, RankCounters> readCounters() const;
  // Removes everything; "" or the problems, one per line. Idempotent.
  std::string tearDown();

 private:
  void setUp();

  SandboxPlan plan_;
  std::string lockDir_;
  std::unique_ptr<RunLock> lock_;
  std::optional<CpuCgroups> cgroups_;
  std::map<int, int> netnsFds_;
  std::map<int, int> procsFds_;
  bool tornDown_ = false;
};

// Removes the namespaces (dbl-<id>-*), cgroups (distbench/<id>) and lock
// files of runs whose lock nobody holds, and dbl-* names without any lock.
// Returns one line per run removed, plus problems.
std::vector<std::string> sweepStaleSandboxes(const std::string& lockDir = kRunLockDir);

}  // namespace distbench::cli
