// `distbench run --prometheus-sd FILE`: a Prometheus file_sd target file
// (https://prometheus.io/docs/prometheus/latest/configuration/configuration/#file_sd_config)
// naming each local rank's /metrics, with the labels the dashboard groups by
// (benchmark, role, rank). Prometheus re-reads the file when it changes, so a
// run is scraped from its start and dropped when it ends, with no restart.
#pragma once

#include <string>
#include <vector>

#include "distbench/api/renderer.h"

namespace distbench::cli {

// The file's text: one target group per rank, "HOST:PORT" of its /metrics
// (metricsPorts indexed by global rank).
std::string prometheusTargetsJson(const std::string& benchmark,
                                  const std::vector<api::RankProcess>& ranks,
                                  const std::vector<int>& metricsPorts, const std::string& host);

// Owns the file for one run: writes the targets, and an empty list when the
// run is over (destructor), each time through process::replaceFile, so
// Prometheus never reads a half-written file and nothing planted beside the
// file is followed.
class PrometheusTargetsFile {
 public:
  // Throws std::runtime_error naming the file when it cannot be written.
  PrometheusTargetsFile(std::string path, const std::string& json);
  ~PrometheusTargetsFile();
  PrometheusTargetsFile(const PrometheusTargetsFile&) = delete;
  PrometheusTargetsFile& operator=(const PrometheusTargetsFile&) = delete;

 private:
  std::string path_;
};

}  // namespace distbench::cli
