// One row's prediction (prediction.h): the predicted p50, its bound,
// interval and what it rests on. Apart from prediction.h for the same
// reason as predict_options.h: each kind's model fills these.
#pragma once

#include <optional>
#include <string>

namespace distbench::report {

struct RowPrediction {
  std::string group, row;
  double measuredSeconds = 0;   // p50 of the row's series
  double predictedSeconds = 0;  // p50 at the options' links and world size
  // "compute" | "communication" | "mixed": exposed communication over the
  // predicted step, > 0.2 communication, < 0.05 compute (as row_attribution.h).
  std::string bound;
  // Time per sample with no communication over the predicted time (the
  // rate per rank relative to one rank alone); NaN where it means nothing
  // (Collectives).
  double scalingEfficiency = 0;

  // Beyond the contract: what the number rests on.
  std::string sampleOf = "iteration";  // as the series: iteration, epoch, op
  int ranks = 0;                       // ranks communicating, as predicted
  double linkBitsPerSecond = 0;        // the link that paces the row (inf: unshaped)
  double communicationSeconds = 0;     // predicted exposed communication per sample
  // Without bucket timings DDP has two bounds, full overlap with backward
  // and none; predictedSeconds is then the one the bucket cap implies.
  std::optional<double> lowerSeconds, upperSeconds;
  std::optional<double> alphaSeconds;         // calibrated per ring step
  std::optional<double> localSecondsPerByte;  // calibrated copy + reduce cost
  std::string basis;  // how it was predicted, in words

  // The prediction interval: the calibration row's own spread (a bootstrap
  // of its p50) and the model's error measured by benchmarks/whatif.py for
  // this kind of prediction (same layout, other world size, CPUs shared
  // differently), combined in quadrature. `uncertainty` says which.
  double lowSeconds = 0, highSeconds = 0;
  std::string uncertainty;
};

}  // namespace distbench::report
