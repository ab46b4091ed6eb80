// What `distbench predict` is asked (prediction.h): the links and world
// size to predict for, the bounds of what it models, and the error for
// options it cannot predict for. Apart from prediction.h so that each
// kind's model (src/prediction_kinds.h), which prediction.cpp includes,
// includes these and not the header that includes it.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>

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

}  // namespace distbench::report
