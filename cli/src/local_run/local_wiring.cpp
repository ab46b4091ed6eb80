#include "local_wiring.h"

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

}  // namespace distbench::cli
