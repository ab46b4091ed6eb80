#include "distbench/cli/local_run/local_wiring.h"

#include <fcntl.h>
#include <unistd.h>

#include "distbench/api/run_key.h"

namespace distbench::cli {

api::RenderedBenchmark renderForLocalRun(const api::DistBenchmark& benchmark,
                                         api::RenderOptions options, const LocalWiring& wiring) {
  options.masterPort = wiring.masterPort;
  options.metricsPorts = wiring.metricsPorts;
  options.metricsLingerSeconds = wiring.metricsLingerSeconds;
  options.metricsAddress = wiring.metricsAddress;
  options.progress = true;
  // One machine: its trainers share its GPUs (LOCAL_RANK, LOCAL_WORLD_SIZE).
  options.ranksShareHost = true;
  api::RenderedBenchmark rendered = api::render(benchmark, options);
  addLocalFlags(rendered.ranks, wiring);
  return rendered;
}

void addLocalFlags(std::vector<api::RankProcess>& ranks, const LocalWiring& wiring) {
  for (api::RankProcess& rank : ranks) {
    if (rank.role == api::Role::Master && !wiring.reportPath.empty()) {
      rank.command.push_back("--report");
      rank.command.push_back(wiring.reportPath);
    }
    if (!wiring.dumpStateDir.empty()) {
      rank.command.push_back("--dump-state");
      rank.command.push_back(wiring.dumpStateDir);
    }
  }
}

bool writeRunKeyFile(const std::string& path) {
  const std::string key = api::newRunKey();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  const bool written = ::write(fd, key.data(), key.size()) == static_cast<ssize_t>(key.size());
  return ::close(fd) == 0 && written;
}

}  // namespace distbench::cli
