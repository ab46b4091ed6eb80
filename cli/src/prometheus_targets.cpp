#include "prometheus_targets.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "distbench/api/json_string.h"

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

void replaceFile(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
      std::remove(temporary.c_str());
      throw std::runtime_error("cannot write " + temporary + ": " + std::strerror(errno));
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(temporary.c_str());
    throw std::runtime_error("cannot replace " + path + ": " + why);
  }
}

PrometheusTargetsFile::PrometheusTargetsFile(std::string path, const std::string& json)
    : path_(std::move(path)) {
  replaceFile(path_, json);
}

PrometheusTargetsFile::~PrometheusTargetsFile() {
  try {
    replaceFile(path_, "[]\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "distbench: %s\n", e.what());
  }
}

}  // namespace distbench::cli
