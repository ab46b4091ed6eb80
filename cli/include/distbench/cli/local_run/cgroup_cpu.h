// CPU caps for `distbench run --slow`: one cgroup per capped rank with a
// CFS quota, on cgroup v1 (a hierarchy with the cpu controller) or v2 (the
// unified one, where its root lists cpu). The rank moves itself in before
// exec (SpawnOptions::cgroupProcsFd), so no instruction of it runs uncapped.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace distbench::cli {

struct CpuController {
  int version = 0;        // 1 or 2
  std::string mountPoint; // "/sys/fs/cgroup/cpu", "/sys/fs/cgroup"
};

// Pure: from /proc/self/mountinfo text, the v1 hierarchy whose super options
// name `cpu` (not just cpuacct or cpuset), and every cgroup2 mount point.
struct CgroupMounts {
  std::optional<std::string> v1Cpu;
  std::vector<std::string> v2;
};
CgroupMounts parseCgroupMounts(const std::string& mountinfo);

// v1 cpu if mounted, else a cgroup2 mount whose cgroup.controllers lists
// cpu; nullopt with `why` set otherwise.
std::optional<CpuController> findCpuController(std::string& why);

// Relative paths ("distbench/<id>/r3") under controller.mountPoint.
class CpuCgroups {
 public:
  explicit CpuCgroups(CpuController controller) : controller_(std::move(controller)) {}

  // mkdir -p, then the period and quota. Throws std::runtime_error naming
  // the file and the error.
  void create(const std::string& relative, long long periodMicros, long long quotaMicros);
  // O_WRONLY|O_CLOEXEC fd of its cgroup.procs, for the child to write "0" to.
  int openProcs(const std::string& relative) const;
  // cpu.stat's throttled time in seconds (v1 throttled_time ns, v2 throttled_usec).
  std::optional<double> throttledSeconds(const std::string& relative) const;
  std::string path(const std::string& relative) const;

  const CpuController& controller() const { return controller_; }

 private:
  CpuController controller_;
};

// SIGKILLs what is left in `dir` and every cgroup below it, then removes
// them bottom-up. Returns the errors ("" when all went).
std::string removeCgroupTree(const std::string& dir);

}  // namespace distbench::cli
