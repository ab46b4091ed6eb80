// What the DDP sweep's master prints and reports: the seed's table, per
// model, a row per sweep step, with aggregate throughput and scaling
// efficiency against the `no ddp` row after the seed's columns.
#pragma once

#include <string>
#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "distbench/report/report.h"
#include "distbench/worker/ddp/bucket_summary.h"
#include "distbench/worker/ddp/ddp_row.h"
#include "distbench/worker/ddp/ddp_sweep.h"

namespace distbench::worker {

struct DdpRowResult {
  SweepRow row;
  std::vector<DdpPhaseSamples> perRank;  // one per participating rank
  std::vector<int> ranks{};              // the global rank of each perRank entry
  // DDP rows only: each rank's per-bucket medians, as perRank.
  std::vector<std::vector<BucketSummary>> bucketsPerRank{};

  // Every rank's samples of one phase, pooled as the seed's allgather_run.
  std::vector<double> pooled(std::vector<double> DdpPhaseSamples::*phase) const;
};

struct DdpModelResult {
  std::string model;
  std::vector<DdpRowResult> rows;  // rows[0] is the `no ddp` baseline
};

// "\nBenchmark: resnet50 with batch size 32\n\n" and the column header.
std::string formatDdpHeader(const std::string& model, int batchSize, bool gpus);
// The seed's row ("   2 ranks --    1M/2R:  p50:  0.100s     319/s ...") plus
// the aggregate examples/s and the scaling efficiency at p50.
std::string formatDdpRow(const DdpRowResult& result, int batchSize, const DdpRowResult& baseline,
                         bool gpus);

// The DDP parts of the report: a series per row, and results.models, whose
// rows carry each rank's phase summaries (perRank) and, for DDP rows, the
// buckets (combineRankBuckets) and their total bytes (gradientBytes).
// `parameterCounts` is per model.
void addDdpResults(report::Report& report, const api::DDPSpec& spec,
                   const std::vector<DdpModelResult>& models,
                   const std::vector<int64_t>& parameterCounts);

}  // namespace distbench::worker
