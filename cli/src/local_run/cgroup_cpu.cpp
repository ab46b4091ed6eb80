#include "distbench/cli/local_run/cgroup_cpu.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace distbench::cli {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, separator)) parts.push_back(part);
  return parts;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void writeFile(const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0 || ::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    int error = errno;
    if (fd >= 0) ::close(fd);
    throw std::runtime_error("cannot write '" + text + "' to " + path + ": " +
                             std::strerror(error));
  }
  ::close(fd);
}

}  // namespace

CgroupMounts parseCgroupMounts(const std::string& mountinfo) {
  CgroupMounts mounts;
  std::stringstream in(mountinfo);
  std::string line;
  while (std::getline(in, line)) {
    // ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS
    std::vector<std::string> fields = split(line, ' ');
    std::size_t dash = 0;
    while (dash < fields.size() && fields[dash] != "-") ++dash;
    if (fields.size() < 5 || dash + 1 >= fields.size()) continue;
    const std::string& mountPoint = fields[4];
    const std::string& type = fields[dash + 1];
    if (type == "cgroup2") {
      mounts.v2.push_back(mountPoint);
    } else if (type == "cgroup" && dash + 3 < fields.size()) {
      for (const std::string& option : split(fields[dash + 3], ',')) {
        if (option == "cpu" && !mounts.v1Cpu) mounts.v1Cpu = mountPoint;
      }
    }
  }
  return mounts;
}

std::optional<CpuController> findCpuController(std::string& why) {
  CgroupMounts mounts = parseCgroupMounts(readFile("/proc/self/mountinfo"));
  if (mounts.v1Cpu) return CpuController{1, *mounts.v1Cpu};
  for (const std::string& mount : mounts.v2) {
    for (const std::string& name : split(readFile(mount + "/cgroup.controllers"), ' ')) {
      std::string trimmed = name;
      while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.back()))) {
        trimmed.pop_back();
      }
      if (trimmed == "cpu") return CpuController{2, mount};
    }
  }
  why = mounts.v2.empty() ? "no cgroup hierarchy with the cpu controller is mounted"
                          : "the cpu controller is neither in a cgroup v1 hierarchy nor in " +
                                mounts.v2.front() + "/cgroup.controllers";
  return std::nullopt;
}

std::string CpuCgroups::path(const std::string& relative) const {
  return controller_.mountPoint + "/" + relative;
}

void CpuCgroups::create(const std::string& relative, long long periodMicros,
                        long long quotaMicros) {
  fs::path dir = path(relative);
  if (controller_.version == 2) {
    // Each level must hand the cpu controller to its children.
    fs::path level = controller_.mountPoint;
    for (const auto& part : fs::path(relative)) {
      writeFile((level / "cgroup.subtree_control").string(), "+cpu");
      level /= part;
      std::error_code ignored;
      fs::create_directory(level, ignored);
    }
  }
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) throw std::runtime_error("cannot make cgroup " + dir.string() + ": " + error.message());
  if (controller_.version == 1) {
    writeFile((dir / "cpu.cfs_period_us").string(), std::to_string(periodMicros));
    writeFile((dir / "cpu.cfs_quota_us").string(), std::to_string(quotaMicros));
  } else {
    writeFile((dir / "cpu.max").string(),
              std::to_string(quotaMicros) + " " + std::to_string(periodMicros));
  }
}

int CpuCgroups::openProcs(const std::string& relative) const {
  const std::string file = path(relative) + "/cgroup.procs";
  int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open " + file + ": " + std::strerror(errno));
  return fd;
}

std::optional<double> CpuCgroups::throttledSeconds(const std::string& relative) const {
  std::stringstream in(readFile(path(relative) + "/cpu.stat"));
  std::string key;
  double value = 0;
  while (in >> key >> value) {
    if (controller_.version == 1 && key == "throttled_time") return value / 1e9;
    if (controller_.version == 2 && key == "throttled_usec") return value / 1e6;
  }
  return std::nullopt;
}

std::string removeCgroupTree(const std::string& dir) {
  std::error_code error;
  if (!fs::is_directory(dir, error)) return "";
  std::string problems;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    if (entry.is_directory(error)) problems += removeCgroupTree(entry.path().string());
  }
  // rmdir fails with EBUSY while a process is inside: kill, then wait for
  // the kernel to let go of the dead ones.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (true) {
    std::stringstream procs(readFile(dir + "/cgroup.procs"));
    pid_t pid = 0;
    while (procs >> pid) ::kill(pid, SIGKILL);
    if (::rmdir(dir.c_str()) == 0 || errno == ENOENT) break;
    if (errno != EBUSY || std::chrono::steady_clock::now() > deadline) {
      problems += "cannot remove cgroup " + dir + ": " + std::strerror(errno) + "\n";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return problems;
}

}  // namespace distbench::cli
