// `distbench predict`: from one measured run, the p50 step time of each row
// at another link speed or world size, with an interval (docs/performance.md,
// "Prediction"). Compute comes from the run as measured (scaled where ranks
// would share a host's CPUs differently); communication from the bytes the
// run moved, over token-bucket links (alpha_beta.h): DDP replays its gradient
// buckets at their measured launch offsets, so overlap with backward is as
// measured, and the allreduce's own cost per byte is calibrated so that the
// model gives back the measured wait; HybridDDPRPC follows a step's lookup
// and update stages over the trainers' and the parameter servers' links;
// Collectives the ring or tree share of each op. Nothing assumes a CPU: on a
// GPU run the same phases and bucket times are the device's.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "distbench/report/predict_options.h"
#include "distbench/report/report.h"
#include "distbench/report/row_prediction.h"

namespace distbench::report {

struct Prediction {
  std::vector<RowPrediction> rows;
  double efficiency = 0;  // eta used
  double bitsPerSecond = 0;  // --bandwidth (0: as measured)
  std::map<int, double> rankBitsPerSecond;
  std::optional<int> worldSize;
  std::optional<int> parameterServers;
  std::string linkBurst;  // "none", "tbf" or "<n> bytes"
  std::vector<std::string> notes;  // assumptions and fallbacks the rows took
};

// Throws PredictOptionError for bad options, ReportError (naming the field)
// for a report whose results cannot be read or are beyond the bounds above.
Prediction predictReport(const Report& measured, const PredictOptions& options);
// The contract's form: the rows alone.
std::vector<RowPrediction> predict(const Report& measured, const PredictOptions& options);

// The table (group, row, measured p50, predicted p50, bound, efficiency)
// and the model's constants under it.
std::string formatPrediction(const Report& measured, const Prediction& prediction);
std::string predictionToJson(const Prediction& prediction);

}  // namespace distbench::report
