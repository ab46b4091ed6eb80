// The interval around a predicted p50: what the calibration row's own
// samples leave open, and what the model got wrong where it was checked.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <utility>
#include <vector>

#include "distbench/report/bootstrap.h"
#include "distbench/report/percentiles.h"
#include "prediction_kinds.h"

namespace distbench::report::prediction {
namespace {

// The interval's parts, from benchmarks/whatif.py's first pass on the
// 2-vCPU CI VM (docs/performance.md, "Prediction"), rounded up:
// - run to run: two runs of the same spec differ by more than either's
//   samples say (the unshaped point, predicted as the calibration run's own
//   p50, missed a second run by up to 14 %). It is the computing part's:
//   the time on the wire does not wander so.
// - the model's own error, by kind of prediction: links changed at the
//   measured world size; another world size; another world size whose
//   ranks share the host's CPUs differently (compute scaled by
//   contention()).
constexpr double kRunToRun = 0.15;
constexpr double kLinkError = 0.08;
constexpr double kWorldSizeError = 0.11;
constexpr double kContentionError = 0.11;

constexpr int kResamples = 1000;
constexpr double kConfidence = 0.95;

// The p50's own percentile-bootstrap interval, as distances below and above
// the p50 of the samples.
std::pair<double, double> p50Spread(const std::vector<double>& samples) {
  if (samples.size() < 2) return {0, 0};
  std::vector<double> work(samples);
  const double center = medianInPlace(work);
  std::mt19937_64 rng(kDefaultBootstrapSeed);
  const UniformIndex pick(samples.size());
  std::vector<double> medians(kResamples);
  for (double& m : medians) {
    for (double& v : work) v = samples[pick(rng)];
    m = medianInPlace(work);
  }
  std::sort(medians.begin(), medians.end());
  return {std::max(0.0, center - percentileLinear(medians, 100 * (1 - kConfidence) / 2)),
          std::max(0.0, percentileLinear(medians, 100 * (1 + kConfidence) / 2) - center)};
}

}  // namespace

void Context::setInterval(RowPrediction& row, int seriesIndex, double contention,
                          bool worldSizeChanged) const {
  const auto [below, above] = p50Spread(series(seriesIndex, "series").samples);
  const double model = contention != 1 ? kContentionError
                       : worldSizeChanged ? kWorldSizeError
                                          : kLinkError;
  // The measured time carries into the prediction as compute does: scaled
  // where ranks share CPUs differently; so does a run's drift.
  const double computing = std::max(0.0, row.predictedSeconds - row.communicationSeconds);
  const double common = std::hypot(model * row.predictedSeconds, kRunToRun * computing);
  row.lowSeconds = std::max(0.0, row.predictedSeconds - std::hypot(below * contention, common));
  row.highSeconds = row.predictedSeconds + std::hypot(above * contention, common);
  char text[200];
  std::snprintf(text, sizeof text,
                "calibration p50 -%.2g/+%.2g%% (95%% bootstrap), run to run %.0f%% of the "
                "%.0f%% computing, model %.0f%% (%s)",
                row.measuredSeconds > 0 ? 100 * below / row.measuredSeconds : 0.0,
                row.measuredSeconds > 0 ? 100 * above / row.measuredSeconds : 0.0,
                100 * kRunToRun,
                row.predictedSeconds > 0 ? 100 * computing / row.predictedSeconds : 0.0,
                100 * model,
                contention != 1 ? "ranks share CPUs differently"
                : worldSizeChanged ? "another world size"
                                   : "links changed");
  row.uncertainty = text;
}

}  // namespace distbench::report::prediction
