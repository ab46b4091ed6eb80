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
#include <stdexcept>
#include <string>
#include <vector>

#include "distbench/report/report.h"

namespace distbench::report {

// What `distbench predict` models at most (docs/performance.md,
// "Prediction"). A report or a flag beyond them is refused naming the field
// or flag: the model walks ranks and buckets, so a crafted report could
// otherwise keep it busy, or allocating, without bound.
inline constexpr int kMaxPredictRanks = 65536;  // ranks of a row, trainers, PSs, --world-size
inline constexpr double kMaxPredictGradientBytes = 1125899906842624.0;  // 2^50: 1 PiB
inline constexpr double kMaxPredictBuckets = 1e6;  // gradients / bucketCapMB, per DDP row

// The bucket of the predicted links (alpha_beta.h, TokenBucketLink). A
// real NIC has none; `distbench run --links` shapes with tbf, whose bucket
// passes a millisecond of the rate at once (tbfBurstBytes).
enum class LinkBurst { None, Tbf, Bytes };

struct PredictOptions {
  double bitsPerSecond = 0;                 // every rank's link; 0: as measured
  std::map<int, double> rankBitsPerSecond;  // global rank -> its link, over the above
  std::optional<int> worldSize;             // trainers (DDP, hybrid) or ranks (Collectives)
  std::optional<int> parameterServers;      // HybridDDPRPC only
  double efficiency = 0;                    // eta; 0: kDefaultLinkEfficiency
  LinkBurst burst = LinkBurst::None;        // of the links the options set
  double burstBytes = 0;                    // with LinkBurst::Bytes
};

// Options that cannot be predicted for; the message begins with the flag
// of `distbench predict` it concerns ("--rank 7: ...").
struct PredictOptionError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

struct RowPrediction {
  std::string group, row;
  double measuredSeconds = 0;   // p50 of the row's series
  double predictedSeconds = 0;  // p50 at the options' links and world size
  // "compute" | "communication" | "mixed": exposed communication over the
  // predicted step, > 0.2 communication, < 0.05 compute (as attribution.h).
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
