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
// run is over (destructor), each time by rename, so Prometheus never reads a
// half-written file.
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

// Replaces `path` with `text` by writing a new sibling (an unguessable name,
// created with O_EXCL|O_NOFOLLOW) and renaming it over. Refuses a `path`
// that is a symbolic link or not a regular file. Throws std::runtime_error
// naming the file.
void replaceFile(const std::string& path, const std::string& text);

}  // namespace distbench::cli
