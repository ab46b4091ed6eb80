#include "support/local_cluster.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include "distbench/api/renderer.h"
#include "distbench/cli/local_run/local_wiring.h"
#include "distbench/process/free_ports.h"

namespace distbench::worker::testing {

LocalCluster::LocalCluster(const api::DistBenchmark& benchmark, std::set<int> skipRanks,
                           int metricsLingerSeconds, const process::ChildProcess::Env& masterEnv,
                           bool reportFile,
                           const std::map<int, process::ChildProcess::Env>& rankEnv)
    : dir_("distbench-test-") {
  api::RenderOptions options;
  options.masterAddr = "127.0.0.1";
  options.workerBinary = DISTBENCH_WORKER_BINARY;
  options.configPath = dir_.path() + "/config.yaml";
  // As `distbench run` does: the ranks share a run key (api/run_key.h).
  options.runKeyFile = dir_.path() + "/run-key";
  if (!cli::writeRunKeyFile(options.runKeyFile)) {
    throw std::runtime_error("cannot write " + options.runKeyFile);
  }

  stateDir_ = dir_.path() + "/state";
  reportPath_ = dir_.path() + "/report.json";
  const int world = static_cast<int>(api::worldSize(benchmark.spec));
  std::vector<int> ports = process::pickFreePorts(world + 1);
  cli::LocalWiring wiring;
  wiring.masterPort = ports[0];
  masterPort_ = ports[0];
  wiring.metricsPorts.assign(ports.begin() + 1, ports.end());
  wiring.reportPath = reportFile ? reportPath_ : "";
  wiring.dumpStateDir = stateDir_;
  wiring.metricsLingerSeconds = metricsLingerSeconds;
  const api::RenderedBenchmark rendered = cli::renderForLocalRun(benchmark, options, wiring);
  std::ofstream(options.configPath) << rendered.configYaml;

  children_.resize(world);
  output_.resize(world);
  stdout_.resize(world);
  for (const auto& rank : rendered.ranks) {
    if (skipRanks.count(rank.rank)) continue;
    process::ChildProcess::Env env;
    for (const auto& e : rank.env) env.emplace_back(e.name, e.value);
    if (auto own = rankEnv.find(rank.rank); own != rankEnv.end()) {
      for (const auto& [name, value] : own->second) {
        auto it = std::find_if(env.begin(), env.end(), [&](const auto& e) { return e.first == name; });
        if (it != env.end()) it->second = value; else env.emplace_back(name, value);
      }
    }
    if (rank.role == api::Role::Master) env.insert(env.end(), masterEnv.begin(), masterEnv.end());
    children_[rank.rank] = process::ChildProcess::spawn(rank.command, env);
  }
}

LocalCluster::~LocalCluster() = default;  // ChildProcess kills what still runs

std::string LocalCluster::runKey() const {
  std::ifstream in(dir_.path() + "/run-key");
  std::string key;
  std::getline(in, key);
  if (key.empty()) throw std::runtime_error("no run key in " + dir_.path() + "/run-key");
  return key;
}

void LocalCluster::pump(std::chrono::milliseconds wait) {
  std::vector<pollfd> fds;
  std::vector<int> owner;
  for (size_t r = 0; r < children_.size(); ++r) {
    if (!children_[r]) continue;
    for (int fd : {children_[r]->stdoutFd(), children_[r]->stderrFd()}) {
      if (fd >= 0) {
        fds.push_back({fd, POLLIN, 0});
        owner.push_back(static_cast<int>(r));
      }
    }
  }
  if (!fds.empty()) ::poll(fds.data(), fds.size(), static_cast<int>(wait.count()));
  for (size_t i = 0; i < fds.size(); ++i) {
    if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    char buffer[4096];
    ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
    auto& child = *children_[owner[i]];
    if (n > 0) {
      output_[owner[i]].append(buffer, static_cast<size_t>(n));
      if (fds[i].fd == child.stdoutFd()) stdout_[owner[i]].append(buffer, static_cast<size_t>(n));
    } else if (n == 0) {
      fds[i].fd == child.stdoutFd() ? child.closeStdout() : child.closeStderr();
    }
  }
  for (auto& c : children_) {
    if (c && c->running()) c->pollExit();
  }
  if (fds.empty()) ::usleep(static_cast<useconds_t>(wait.count()) * 1000);
}

std::chrono::milliseconds LocalCluster::waitAll(std::chrono::seconds limit) {
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + limit;
  auto busy = [&] {
    for (auto& c : children_) {
      if (c && (c->running() || c->stdoutFd() >= 0 || c->stderrFd() >= 0)) return true;
    }
    return false;
  };
  while (busy() && std::chrono::steady_clock::now() < deadline) {
    pump(std::chrono::milliseconds(50));
  }
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               start);
}

bool LocalCluster::waitForOutput(int rank, const std::string& needle, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (output_[rank].find(needle) == std::string::npos) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    pump(std::chrono::milliseconds(20));
  }
  return true;
}

std::optional<std::chrono::milliseconds> LocalCluster::waitExit(int rank,
                                                                std::chrono::milliseconds limit) {
  const auto start = std::chrono::steady_clock::now();
  while (!children_[rank]->exitStatus()) {
    if (std::chrono::steady_clock::now() - start > limit) return std::nullopt;
    pump(std::chrono::milliseconds(10));
  }
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               start);
}

void LocalCluster::kill(int rank, int signal) {
  if (children_[rank]) children_[rank]->signalGroup(signal);
}

std::optional<process::ExitStatus> LocalCluster::exitStatus(int rank) const {
  return children_[rank] ? children_[rank]->exitStatus() : std::nullopt;
}

std::string LocalCluster::allOutput() const {
  std::string all;
  for (size_t r = 0; r < output_.size(); ++r) {
    all += "---- rank " + std::to_string(r) + " ----\n" + output_[r];
  }
  return all;
}

}  // namespace distbench::worker::testing
