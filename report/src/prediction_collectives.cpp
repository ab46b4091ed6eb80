// Collectives: each op's latency as measured, plus the change in its wire
// time and (at another world size) in its per-step cost alpha, fitted per
// op group over the sizes the run measured.
#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>

#include "distbench/report/alpha_beta.h"
#include "prediction_kinds.h"

namespace distbench::report::prediction {
namespace {

constexpr int kFirstRank = 1;  // rank 0 is the master

// What one rank's slowest link carries per op of n bytes on p ranks, as a
// multiple of n, and the op's sequential steps (how often alpha is paid).
// Ring algorithms for the all-to-all family; root-based ops send n to (or
// from) each peer over the root's link.
struct OpShape {
  double share = 0;
  double steps = 0;
};
OpShape shapeOf(const std::string& op, int p) {
  if (p < 2) return {0, 0};
  const double q = p - 1;
  if (op == "allreduce") return {2 * q / p, 2 * q};
  if (op == "allgather" || op == "reducescatter" || op == "alltoall") return {q / p, q};
  if (op == "broadcast" || op == "reduce") return {q, q};
  if (op == "scatter" || op == "gather") return {q / p, q};
  return {1, 1};  // sendrecv, and ops this model does not know: one transfer
}

}  // namespace

std::vector<RowPrediction> predictCollectives(const Context& context) {
  const Report& report = context.report();
  const double eta = context.efficiency();
  // Calibrate alpha per (group, ranks): latency against bytes.
  std::map<std::pair<std::string, int>, std::vector<int>> groups;
  for (size_t i = 0; i < report.series.size(); ++i) {
    const Series& s = report.series[i];
    if (s.workUnit == "bytes" && !s.samples.empty()) groups[{s.group, s.ranks}].push_back(i);
  }
  std::vector<RowPrediction> out;
  for (const auto& [key, indices] : groups) {
    const int measuredRanks = key.second;
    const int ranks = context.worldSize().value_or(measuredRanks);
    const std::string op = report.series[indices.front()].groupKey.count("op")
                               ? report.series[indices.front()].groupKey.at("op")
                               : report.series[indices.front()].group;
    const OpShape before = shapeOf(op, measuredRanks);
    const OpShape after = shapeOf(op, ranks);
    const double linkBefore = context.slowestMeasured(kFirstRank, measuredRanks);
    const double linkAfter = context.slowestTarget(kFirstRank, ranks);
    std::vector<double> bytes, seconds;
    for (int i : indices) {
      bytes.push_back(report.series[i].workPerSample);
      seconds.push_back(context.seriesP50(i, "series[" + std::to_string(i) + "]"));
    }
    const LineFit fit = fitLine(bytes, seconds);
    const double alpha = before.steps > 0 ? fit.intercept / before.steps : 0;
    const double local = std::max(
        0.0, fit.slope - before.share * wireSeconds(1, linkBefore, eta));
    for (size_t k = 0; k < indices.size(); ++k) {
      const Series& s = report.series[indices[k]];
      RowPrediction row;
      row.group = s.group;
      row.row = s.row;
      row.sampleOf = s.sampleOf;
      row.measuredSeconds = seconds[k];
      const double n = bytes[k];
      const double wireBefore = before.share * wireSeconds(n, linkBefore, eta);
      const double wireAfter = after.share * wireSeconds(n, linkAfter, eta);
      // As the ring allreduce (alpha_beta.h): the op's own cost overlaps the
      // wire, and the slower paces it.
      const double own = std::max(0.0, row.measuredSeconds - wireBefore);
      row.predictedSeconds =
          std::max(std::max(0.0, own + (after.steps - before.steps) * alpha), wireAfter);
      row.communicationSeconds = row.predictedSeconds;  // an op is all communication
      row.ranks = ranks;
      row.linkBitsPerSecond = linkAfter;
      row.alphaSeconds = alpha;
      row.localSecondsPerByte = local;
      char share[32];
      std::snprintf(share, sizeof share, "%.2f", after.share);
      row.basis = op + ": " + share + " x bytes over the slowest link";
      row.bound = "communication";
      row.scalingEfficiency = std::numeric_limits<double>::quiet_NaN();
      context.setInterval(row, indices[k], 1, ranks != measuredRanks);
      out.push_back(row);
    }
  }
  return out;
}

}  // namespace distbench::report::prediction
