#include "local_wiring.h"

#include <stdexcept>

namespace distbench::cli {

api::RenderedBenchmark renderForLocalRun(const api::DistBenchmark& benchmark,
                                         api::RenderOptions options, const LocalWiring& wiring) {
  options.masterPort = wiring.masterPort;
  options.metricsPorts = wiring.metricsPorts;
  options.metricsLingerSeconds = wiring.metricsLingerSeconds;
  options.progress = true;
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

void setEnv(api::RankProcess& rank, const std::string& name, const std::string& value) {
  for (api::EnvVar& var : rank.env) {
    if (var.name == name) {
      var.value = value;
      return;
    }
  }
  rank.env.push_back({name, value});
}

void wireForLocalRun(std::vector<api::RankProcess>& ranks, const LocalWiring& wiring) {
  if (wiring.metricsPorts.size() != ranks.size()) {
    throw std::invalid_argument("need one metrics port per rank: " + std::to_string(ranks.size()) +
                                " ranks, " + std::to_string(wiring.metricsPorts.size()) + " ports");
  }
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    api::RankProcess& rank = ranks[i];
    const int metricsPort = wiring.metricsPorts[i];
    setEnv(rank, api::kEnvMasterPort, std::to_string(wiring.masterPort));
    setEnv(rank, api::kEnvMetricsPort, std::to_string(metricsPort));
    setEnv(rank, api::kEnvMetricsLinger, std::to_string(wiring.metricsLingerSeconds));
    setEnv(rank, api::kEnvProgress, "1");

    // Keep `ports` truthful for anyone printing the wired ranks.
    rank.ports.clear();
    if (rank.role == api::Role::Master) rank.ports.push_back(wiring.masterPort);
    rank.ports.push_back(metricsPort);
  }
  addLocalFlags(ranks, wiring);
}

}  // namespace distbench::cli
