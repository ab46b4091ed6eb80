#include "distbench/cli/local_run/net_sandbox.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>
#include <sstream>

#include "distbench/cli/local_run/tool_runner.h"

namespace distbench::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kNetnsDir = "/run/netns";

std::string ipTool() { return findTool("ip"); }
std::string tcTool() { return findTool("tc"); }

// fork, unshare(CLONE_NEWNET) in the child: the one test of the privilege
// that says nothing else, whatever capabilities or user namespace we run in.
int probeNetworkNamespace() {
  pid_t pid = ::fork();
  if (pid < 0) return errno;
  if (pid == 0) ::_exit(::unshare(CLONE_NEWNET) == 0 ? 0 : errno);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : EPERM;
}

// "dbl-<id>-..." -> "<id>"; "" for names not ours.
std::string runIdOfNetns(const std::string& name) {
  const std::string prefix = kSandboxPrefix;
  if (name.rfind(prefix, 0) != 0) return "";
  std::size_t dash = name.find('-', prefix.size());
  if (dash == std::string::npos) return "";
  return name.substr(prefix.size(), dash - prefix.size());
}

std::vector<std::string> ourNetns() {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(kNetnsDir, error)) {
    std::string name = entry.path().filename().string();
    if (!runIdOfNetns(name).empty()) names.push_back(name);
  }
  return names;
}

// Kills whatever still runs in each namespace, then deletes the names. A
// namespace lives on while a process is in it, so the kill comes first.
std::string deleteNetns(const std::vector<std::string>& names) {
  if (names.empty()) return "";
  const std::string ip = ipTool();
  std::vector<std::string> lines;
  for (const std::string& name : names) {
    ToolResult pids = runTool({ip, "netns", "pids", name});
    std::stringstream in(pids.output);
    pid_t pid = 0;
    while (in >> pid) ::kill(pid, SIGKILL);
    lines.push_back("netns del " + name);
  }
  // Deleting the hub first frees every veth with it.
  ToolResult result = runBatch({ip, "-force"}, lines);
  std::string problems;
  for (const std::string& name : names) {
    if (fs::exists(std::string(kNetnsDir) + "/" + name)) {
      problems += "cannot delete network namespace " + name + ": " + result.error + "\n";
    }
  }
  return problems;
}

std::optional<CpuController> cpuController() {
  std::string why;
  return findCpuController(why);
}

}  // namespace

void checkSandboxPrerequisites(bool network, bool cpu) {
  if (network) {
    if (int error = probeNetworkNamespace()) {
      throw SandboxRefused(std::string("--links needs network namespaces, and this process may "
                                       "not make one: unshare(CLONE_NEWNET): ") +
                           std::strerror(error) + " (run as root, or with CAP_SYS_ADMIN)");
    }
    for (const char* tool : {"ip", "tc"}) {
      if (findTool(tool).empty()) {
        throw SandboxRefused(std::string("--links needs '") + tool +
                             "' (iproute2), which is not in " + toolSearchPlaces());
      }
    }
  }
  if (cpu) {
    std::string why;
    std::optional<CpuController> controller = findCpuController(why);
    if (!controller) throw SandboxRefused("--slow needs a cgroup cpu controller: " + why);
    if (::access(controller->mountPoint.c_str(), W_OK) != 0) {
      throw SandboxRefused("--slow needs to make a cgroup in " + controller->mountPoint + ": " +
                           std::strerror(errno) + " (run as root)");
    }
  }
}

LocalSandbox::LocalSandbox(SandboxPlan plan, std::string lockDir)
    : plan_(std::move(plan)), lockDir_(std::move(lockDir)) {
  try {
    setUp();
  } catch (const SandboxRefused&) {
    tearDown();
    throw;
  } catch (const std::exception& error) {
    tearDown();
    throw SandboxRefused(error.what());
  }
}

LocalSandbox::~LocalSandbox() { tearDown(); }

void LocalSandbox::setUp() {
  lock_ = std::make_unique<RunLock>(lockDir_, plan_.runId);
  if (plan_.network) {
    const std::string ip = ipTool();
    const std::string tc = tcTool();
    ToolResult made = runBatch({ip}, netnsAddLines(plan_));
    if (!made.ok) {
      throw SandboxRefused("--links needs network namespaces: 'ip netns add' failed: " + made.error);
    }
    ToolResult hub = runBatch({ip, "-n", plan_.hubNetns}, hubIpLines(plan_));
    if (!hub.ok) throw SandboxRefused("--links: making the bridge and veths failed: " + hub.error);
    for (const RankSandbox& rank : plan_.ranks) {
      ToolResult addressed = runBatch({ip, "-n", rank.netns}, rankIpLines(plan_, rank));
      if (!addressed.ok) {
        throw SandboxRefused("--links: addressing " + rank.label + " failed: " + addressed.error);
      }
    }
    // The first tc batch is also the proof that tbf (htb and u32 with
    // pairs) exists in this kernel.
    ToolResult shaped = runBatch({tc, "-n", plan_.hubNetns}, hubTcLines(plan_));
    for (const RankSandbox& rank : plan_.ranks) {
      if (!shaped.ok) break;
      shaped = runBatch({tc, "-n", rank.netns}, rankTcLines(rank));
    }
    if (!shaped.ok) {
      throw SandboxRefused(std::string("--links needs the tbf qdisc") +
                           (plan_.pairs.empty() ? "" : ", and for pairs htb and u32 filters") +
                           ": 'tc' failed: " + shaped.error);
    }
    for (const RankSandbox& rank : plan_.ranks) {
      const std::string path = std::string(kNetnsDir) + "/" + rank.netns;
      int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) throw SandboxRefused("cannot open " + path + ": " + std::strerror(errno));
      netnsFds_[rank.rank] = fd;
    }
  }
  bool capped = false;
  for (const RankSandbox& rank : plan_.ranks) capped = capped || rank.cpuLimit.has_value();
  if (capped) {
    std::string why;
    std::optional<CpuController> controller = findCpuController(why);
    if (!controller) throw SandboxRefused("--slow needs a cgroup cpu controller: " + why);
    cgroups_.emplace(*controller);
    for (const RankSandbox& rank : plan_.ranks) {
      if (!rank.cpuLimit) continue;
      try {
        cgroups_->create(rank.cgroup, cpuPeriodMicros(*rank.cpuLimit), cpuQuotaMicros(*rank.cpuLimit));
        procsFds_[rank.rank] = cgroups_->openProcs(rank.cgroup);
      } catch (const std::exception& error) {
        throw SandboxRefused(std::string("--slow: ") + error.what());
      }
    }
  }
}

process::SpawnOptions LocalSandbox::spawnOptions(int rank) const {
  process::SpawnOptions options;
  if (auto it = netnsFds_.find(rank); it != netnsFds_.end()) options.netnsFd = it->second;
  if (auto it = procsFds_.find(rank); it != procsFds_.end()) options.cgroupProcsFd = it->second;
  return options;
}

std::map<int, RankCounters> LocalSandbox::readCounters() const {
  std::map<int, RankCounters> counters;
  const std::string tc = plan_.network ? tcTool() : "";
  for (const RankSandbox& rank : plan_.ranks) {
    RankCounters& c = counters[rank.rank];
    if (plan_.network && (rank.linkBitsPerSecond || !rank.peerBitsPerSecond.empty())) {
      c.egress = parseTbfCounters(
          runTool({tc, "-s", "-j", "-n", rank.netns, "qdisc", "show", "dev", kRankDevice}).output);
      c.ingress = parseTbfCounters(runTool({tc, "-s", "-j", "-n", plan_.hubNetns, "qdisc", "show",
                                            "dev", hubDevice(rank.rank)})
                                       .output);
      for (const auto& [peer, bitsPerSecond] : rank.peerBitsPerSecond) {
        std::optional<QdiscCounters> sent =
            parseClassCounters(runTool({tc, "-s", "-n", rank.netns, "class", "show", "dev",
                                        kRankDevice, "classid", pairClassId(peer)})
                                   .output);
        if (sent) c.sentToPeer[peer] = *sent;
      }
    }
    if (cgroups_ && rank.cpuLimit) c.throttledSeconds = cgroups_->throttledSeconds(rank.cgroup);
  }
  return counters;
}

std::string LocalSandbox::tearDown() {
  if (tornDown_) return "";
  tornDown_ = true;
  for (auto& [rank, fd] : netnsFds_) ::close(fd);
  for (auto& [rank, fd] : procsFds_) ::close(fd);
  netnsFds_.clear();
  procsFds_.clear();
  std::string problems;
  if (plan_.network) {
    std::vector<std::string> names;
    for (const std::string& name : ourNetns()) {
      if (runIdOfNetns(name) == plan_.runId) names.push_back(name);
    }
    problems += deleteNetns(names);
  }
  if (cgroups_) {
    problems += removeCgroupTree(cgroups_->path("distbench/" + plan_.runId));
    // Fails harmlessly while another run has its cgroups there.
    ::rmdir(cgroups_->path("distbench").c_str());
  }
  lock_.reset();
  return problems;
}

std::vector<std::string> sweepStaleSandboxes(const std::string& lockDir) {
  // What exists is listed before the locks are read: a run takes its lock
  // before it makes anything, so whatever is listed here and belongs to a
  // live run has its lock held by the time we look.
  std::vector<std::string> names = ipTool().empty() ? std::vector<std::string>{} : ourNetns();
  std::optional<CpuController> controller = cpuController();
  const fs::path cgroupRoot =
      controller ? fs::path(controller->mountPoint) / "distbench" : fs::path();
  std::vector<fs::path> cgroupDirs;
  std::error_code error;
  if (controller) {
    for (const auto& entry : fs::directory_iterator(cgroupRoot, error)) {
      if (entry.is_directory(error)) cgroupDirs.push_back(entry.path());
    }
  }

  StaleRuns stale;
  findStaleRuns(lockDir, stale);
  std::set<std::string> liveIds;
  for (const std::string& id : liveRunIds(lockDir)) liveIds.insert(id);
  for (const std::string& id : stale.ids) liveIds.erase(id);  // locked by us just now

  std::set<std::string> removed;
  std::vector<std::string> doomed;
  for (const std::string& name : names) {
    std::string id = runIdOfNetns(name);
    if (liveIds.count(id)) continue;
    doomed.push_back(name);
    removed.insert(id);
  }
  std::string problems = deleteNetns(doomed);
  for (const fs::path& dir : cgroupDirs) {
    std::string id = dir.filename().string();
    if (liveIds.count(id)) continue;
    problems += removeCgroupTree(dir.string());
    removed.insert(id);
  }
  // The parent goes once empty; a live run recreates it.
  if (controller) ::rmdir(cgroupRoot.c_str());
  for (const std::string& id : stale.ids) {
    ::unlink((lockDir + "/" + id + ".lock").c_str());
    removed.insert(id);
  }

  std::vector<std::string> report;
  for (const std::string& id : removed) {
    report.push_back("distbench: removed the leftovers of sandbox run " + id +
                     " (its distbench run is gone)");
  }
  std::stringstream lines(problems);
  std::string line;
  while (std::getline(lines, line)) report.push_back("distbench: " + line);
  return report;
}

}  // namespace distbench::cli
