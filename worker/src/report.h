// The JSON report of a run (docs/report-schema.md).
#pragma once

#include <string>
#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "host_info.h"
#include "result_table.h"

namespace distbench::worker {

inline constexpr int kReportSchemaVersion = 1;

struct ReportInput {
  const api::DistBenchmark* benchmark = nullptr;
  std::vector<TrainerResult> trainers;
  HostInfo host;
  std::string torchVersion;
};

std::string buildReportJson(const ReportInput& input);
// Throws std::runtime_error naming the path when it cannot be written.
void writeReport(const std::string& path, const ReportInput& input);

}  // namespace distbench::worker
