#include "distbench/cli/local_run/prometheus_targets.h"

#include <cstdio>
#include <exception>

#include "distbench/api/json_string.h"
#include "distbench/process/replace_file.h"

namespace distbench::cli {

std::string prometheusTargetsJson(const std::string& benchmark,
                                  const std::vector<api::RankProcess>& ranks,
                                  const std::vector<int>& metricsPorts, const std::string& host) {
  using api::jsonString;
  std::string out = "[\n";
  for (size_t i = 0; i < ranks.size(); ++i) {
    const api::RankProcess& rank = ranks[i];
    const int port = metricsPorts.at(static_cast<size_t>(rank.rank));
    out += "  {\"targets\": [" + jsonString(host + ":" + std::to_string(port)) + "], ";
    out += "\"labels\": {\"benchmark\": " + jsonString(benchmark) +
           ", \"role\": " + jsonString(api::toString(rank.role)) +
           ", \"rank\": " + jsonString(std::to_string(rank.rank)) + "}}";
    out += i + 1 < ranks.size() ? ",\n" : "\n";
  }
  return out + "]\n";
}

PrometheusTargetsFile::PrometheusTargetsFile(std::string path, const std::string& json)
    : path_(std::move(path)) {
  process::replaceFile(path_, json);
}

PrometheusTargetsFile::~PrometheusTargetsFile() {
  try {
    process::replaceFile(path_, "[]\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "distbench: %s\n", e.what());
  }
}

}  // namespace distbench::cli
