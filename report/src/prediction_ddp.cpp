// DDP: compute as measured, the gradient allreduce replayed. With bucket
// timings (rows[].buckets) the buckets launch at their measured share of
// backward and each moves over a token-bucket link while its own cost (a
// calibrated time per byte, the copies and reductions) overlaps the wire;
// that cost is the one that replays the measured wait, so at the measured
// links the prediction is the measurement. Without them, one allreduce of
// all gradients bounds the step from both sides (hidden entirely behind
// backward, or not at all). Where ranks share a host's CPUs, compute and
// the allreduce's own cost scale with the ranks computing at once.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>

#include "distbench/report/alpha_beta.h"
#include "prediction_kinds.h"

namespace distbench::report::prediction {
namespace {

using web::json::value;

// DDP trainers are ranks 1..T (rank 0 is the master, which runs no rows).
constexpr int kFirstTrainer = 1;

// distbench's bucketer (worker/include/distbench/worker/comm/bucket_assignment.h): the first
// bucket holds at most 1 MiB, the others bucketCapMB, and a last bucket over
// 1 MiB has its trailing 1 MiB split off. Kept in step with it by hand: the
// report library cannot see the worker.
constexpr double kFirstBucketBytes = 1024.0 * 1024;

// Buckets of `bytes` of gradients as that policy cuts them, each launched
// when its last gradient arrives, gradients arriving evenly over backward.
// A cap that would cut them into more than kMaxPredictBuckets is refused
// (`path`: the row), before a bucket is made.
std::vector<BucketLaunch> evenArrival(double bytes, double capMB, double backward,
                                      const std::string& path) {
  const double cap = capMB > 0 ? capMB * 1024 * 1024 : bytes;
  if (bytes > kFirstBucketBytes && (bytes - kFirstBucketBytes) / cap > kMaxPredictBuckets) {
    char text[160];
    std::snprintf(text, sizeof text,
                  "bucketCapMB: %g MB cuts %s's %.6g gradient bytes into over %.0f buckets; "
                  "distbench predict replays at most that many",
                  capMB, path.c_str(), bytes, kMaxPredictBuckets);
    throw ReportError(text);
  }
  std::vector<double> sizes;
  double left = bytes;
  sizes.push_back(std::min(left, std::min(cap, kFirstBucketBytes)));
  left -= sizes.back();
  while (left > 0) {
    sizes.push_back(std::min(left, cap));
    left -= sizes.back();
  }
  if (sizes.size() > 1 && sizes.back() > kFirstBucketBytes) {
    sizes.back() -= kFirstBucketBytes;
    sizes.push_back(kFirstBucketBytes);
  }
  std::vector<BucketLaunch> out;
  double arrived = 0;
  for (double size : sizes) {
    arrived += size;
    out.push_back({size, bytes > 0 ? backward * arrived / bytes : backward});
  }
  return out;
}

// A row's gradient bytes, refused over kMaxPredictGradientBytes: a number
// that large is no model's, and the buckets it cuts into are counted in it.
double gradientBytesOf(double bytes, const std::string& field) {
  if (bytes > kMaxPredictGradientBytes) {
    char text[160];
    std::snprintf(text, sizeof text, "%s: %.6g bytes; distbench predict models at most %.6g",
                  field.c_str(), bytes, kMaxPredictGradientBytes);
    throw ReportError(text);
  }
  return bytes;
}

std::vector<BucketLaunch> readBuckets(const value& row, const std::string& path) {
  std::vector<BucketLaunch> out;
  if (!row.has_field("buckets") || !row.at("buckets").is_array()) return out;
  const auto& list = row.at("buckets").as_array();
  for (size_t i = 0; i < list.size(); ++i) {
    const value& b = list.at(i);
    const std::string where = path + ".buckets[" + std::to_string(i) + "]";
    const auto bytes = number(b, "bytes", where);
    const auto launched = number(b, "launched", where);
    if (!bytes || !launched) continue;
    gradientBytesOf(*bytes, where + ".bytes");
    out.push_back({*bytes, std::max(0.0, *launched)});
  }
  return out;
}

// What the bucket replay needs: each bucket's bytes and when it launched as
// a share of backward (so a backward that takes longer launches them
// later), and the measured backward.
struct ReplayInputs {
  std::vector<BucketLaunch> buckets;  // launched: a share of backward
  double backward = 0;
  double eta = 0;
};

std::vector<BucketLaunch> launchShares(std::vector<BucketLaunch> buckets, double backward) {
  for (BucketLaunch& b : buckets) b.launched = backward > 0 ? b.launched / backward : 0;
  return buckets;
}

// The wait after backward for the buckets, on `ranks` ranks over `link`:
// one bucket at a time (Gloo runs them in order), each from its launch or
// the end of the one before, its ring share over the token bucket while its
// own cost (perByte x bytes, scaled with compute) overlaps the wire.
double exposedWait(const ReplayInputs& in, double perByte, int ranks,
                   const Context::LinkView& link, double scale) {
  if (ranks < 2) return 0;
  const double backward = in.backward * scale;
  const double share = 2.0 * (ranks - 1) / ranks;
  TokenBucketLink wire(link.bitsPerSecond, in.eta, link.burstBytes);
  double done = 0;
  for (const BucketLaunch& b : in.buckets) {
    const double start = std::max(b.launched * backward, done);
    const double bytes = share * b.bytes;
    done = start + smoothMax(perByte * bytes * scale, wire.send(start, bytes) - start);
  }
  return std::max(0.0, done - backward);
}

// The allreduce's own cost per byte moved: the one that replays the
// measured wait at the measured links (bisection; the wait grows with it).
// 0 where the wire alone already explains the wait.
double calibrateSecondsPerByte(const ReplayInputs& in, int ranks, const Context::LinkView& link,
                               double wait) {
  if (ranks < 2 || exposedWait(in, 0, ranks, link, 1) >= wait) return 0;
  double low = 0, high = 1e-9;
  while (exposedWait(in, high, ranks, link, 1) < wait && high < 1) high *= 4;
  for (int i = 0; i < 60; ++i) {
    const double mid = (low + high) / 2;
    (exposedWait(in, mid, ranks, link, 1) < wait ? low : high) = mid;
  }
  return (low + high) / 2;
}

// One DDP row as measured: what each way of predicting it reads.
struct DdpRow {
  const value& json;
  std::string path;
  int seriesIndex = -1;
  int measuredRanks = 1, ranks = 1;  // before and after
  double wait = 0, backward = 0;
  double base = 0;   // the step less its exposed allreduce: all as measured
  double scale = 1;  // contention(), measuredRanks -> ranks
};

// With bucket timings: the buckets replayed, their own cost per byte
// calibrated on the measured wait.
void replayBucketTimings(const DdpRow& r, const std::vector<BucketLaunch>& buckets,
                         const Context& context, RowPrediction& out) {
  const ReplayInputs in{launchShares(buckets, r.backward), r.backward, context.efficiency()};
  const Context::LinkView before = context.measuredLinkView(kFirstTrainer, r.measuredRanks);
  const Context::LinkView after = context.targetLinkView(kFirstTrainer, r.ranks);
  const double perByte = calibrateSecondsPerByte(in, r.measuredRanks, before, r.wait);
  const double waitBefore = exposedWait(in, perByte, r.measuredRanks, before, 1);
  const double waitAfter = exposedWait(in, perByte, r.ranks, after, r.scale);
  // The measured wait, moved by what the replay says changes: at the
  // measured links and ranks the prediction is the measurement.
  const double predictedWait = std::max(0.0, r.wait + waitAfter - waitBefore);
  out.predictedSeconds = r.base * r.scale + predictedWait;
  out.communicationSeconds = predictedWait;
  out.localSecondsPerByte = perByte;
  out.basis = std::to_string(buckets.size()) +
              " bucket(s) replayed at their measured share of backward";
  if (r.scale != 1) {
    char text[96];
    std::snprintf(text, sizeof text, "; compute x%.2f (%d ranks on %d CPUs)", r.scale, r.ranks,
                  context.report().host.logicalCpus);
    out.basis += text;
  }
}

// No bucket timings: all gradients, as the worker buckets them, arriving
// evenly over backward. The allreduce's cost besides the wire is unknown,
// so the measured wait stands for it: the prediction is the measured wait
// plus the change in replayed wire time, between both bounds.
void boundWithoutBucketTimings(const DdpRow& r, const value& model, const std::string& modelPath,
                               const Context& context, RowPrediction& out) {
  const double eta = context.efficiency();
  const double measuredLink = context.slowestMeasured(kFirstTrainer, r.measuredRanks);
  const double link = context.slowestTarget(kFirstTrainer, r.ranks);
  double gradientBytes =
      gradientBytesOf(number(r.json, "gradientBytes", r.path).value_or(0), r.path + ".gradientBytes");
  if (gradientBytes <= 0) {
    gradientBytes = gradientBytesOf(4.0 * number(model, "parameters", modelPath).value_or(0),
                                    modelPath + ".parameters (x 4 bytes)");
    context.note("DDP rows without gradientBytes: 4 bytes per model parameter (float32)");
  }
  const std::vector<BucketLaunch> launches =
      evenArrival(gradientBytes, context.report().bucketCapMB, r.backward, r.path);
  auto replayedWait = [&](int p, double bps) {
    const double done =
        replayBuckets(launches, [&](double n) { return ringWireSeconds(n, p, bps, eta); });
    return std::max(0.0, done - r.backward);
  };
  const double wireBefore = ringWireSeconds(gradientBytes, r.measuredRanks, measuredLink, eta);
  const double wireAfter = ringWireSeconds(gradientBytes, r.ranks, link, eta);
  const double upperWait = std::max(0.0, r.wait - wireBefore) + wireAfter;
  const double lowerWait = std::max(0.0, upperWait - r.backward);
  const double predictedWait =
      std::clamp(r.wait + replayedWait(r.ranks, link) - replayedWait(r.measuredRanks, measuredLink),
                 lowerWait, upperWait);
  const double compute = r.base * r.scale;
  out.upperSeconds = compute + upperWait;
  out.lowerSeconds = compute + lowerWait;
  out.predictedSeconds = compute + predictedWait;
  out.communicationSeconds = predictedWait;
  out.basis = "no bucket timings; " + std::to_string(launches.size()) +
              " bucket(s) as the worker cuts them, gradients arriving evenly over backward";
  context.note("DDP rows without bucket timings: bounds from one allreduce of all gradients "
               "(lower: hidden behind backward, upper: after it)");
}

RowPrediction predictRow(const value& model, const std::string& modelPath, const value& row,
                         const std::string& path, std::optional<double> noDdpSeconds,
                         std::optional<double> oneRankSeconds, const Context& context) {
  DdpRow r{row, path};
  r.seriesIndex = wholeNumber(row, "series", path, 0, INT_MAX).value_or(-1);
  RowPrediction out = context.rowFor(r.seriesIndex, path + ".series");
  const bool ddp = row.has_field("ddp") && row.at("ddp").is_boolean() && row.at("ddp").as_bool();
  if (!ddp) {
    out.predictedSeconds = out.measuredSeconds;
    out.ranks = 1;
    out.linkBitsPerSecond = kUnlimitedBitsPerSecond;
    out.basis = "no communication";
    classify(out, out.measuredSeconds);
    context.setInterval(out, r.seriesIndex, 1, false);
    return out;
  }
  r.measuredRanks = wholeNumber(row, "ranks", path, 1, kMaxPredictRanks)
                        .value_or(context.series(r.seriesIndex, path + ".series").ranks);
  r.ranks = context.worldSize().value_or(r.measuredRanks);
  const value phases = row.has_field("phases") ? row.at("phases") : value::object();
  r.wait = p50(phases, "allreduceWait", path + ".phases").value_or(0);
  r.backward = p50(phases, "backward", path + ".phases").value_or(0);
  r.base = std::max(0.0, out.measuredSeconds - r.wait);
  r.scale = context.contention(r.measuredRanks, r.ranks);
  out.ranks = r.ranks;
  out.linkBitsPerSecond = context.slowestTarget(kFirstTrainer, r.ranks);

  const std::vector<BucketLaunch> buckets = readBuckets(row, path);
  if (r.ranks == 1 && r.measuredRanks > 1) {
    // One rank has no allreduce: the sweep's own one-rank row, where there
    // is one, measured it.
    out.predictedSeconds = oneRankSeconds.value_or(r.base * r.scale);
    out.communicationSeconds = 0;
    out.basis = oneRankSeconds ? "the run's own one-rank row" : "the step less its allreduce wait";
  } else if (!buckets.empty()) {
    replayBucketTimings(r, buckets, context, out);
  } else {
    boundWithoutBucketTimings(r, model, modelPath, context, out);
  }
  classify(out, noDdpSeconds.value_or(r.base));
  context.setInterval(out, r.seriesIndex, r.scale, r.ranks != r.measuredRanks);
  return out;
}

}  // namespace

std::vector<RowPrediction> predictDdp(const value& results, const Context& context) {
  std::vector<RowPrediction> out;
  if (!results.has_field("models") || !results.at("models").is_array()) {
    throw ReportError("results.models: missing; not a DDP report");
  }
  const auto& models = results.at("models").as_array();
  for (size_t m = 0; m < models.size(); ++m) {
    const value& model = models.at(m);
    const std::string path = "results.models[" + std::to_string(m) + "]";
    if (!model.has_field("rows") || !model.at("rows").is_array()) continue;
    const auto& rows = model.at("rows").as_array();
    // The reference for scaling efficiency: the same model on one process;
    // and the same under DDP on one rank, what a world of one is.
    std::optional<double> noDdp, oneRank;
    for (size_t r = 0; r < rows.size(); ++r) {
      const value& row = rows.at(r);
      if (!row.has_field("ddp") || !row.at("ddp").is_boolean()) continue;
      const std::string rowPath = path + ".rows[" + std::to_string(r) + "]";
      const double seconds = context.seriesP50(
          wholeNumber(row, "series", rowPath, 0, INT_MAX).value_or(-1), rowPath + ".series");
      if (!row.at("ddp").as_bool()) {
        noDdp = seconds;
      } else if (wholeNumber(row, "ranks", rowPath, 1, kMaxPredictRanks) == 1) {
        oneRank = seconds;
      }
    }
    for (size_t r = 0; r < rows.size(); ++r) {
      out.push_back(predictRow(model, path, rows.at(r), path + ".rows[" + std::to_string(r) + "]",
                               noDdp, oneRank, context));
    }
  }
  if (context.worldSize()) {
    context.note("--world-size: every DDP row predicted at " + std::to_string(*context.worldSize()) +
                 " ranks, each rank computing as it did in the run");
  }
  return out;
}

}  // namespace distbench::report::prediction
