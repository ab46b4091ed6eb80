// The alpha-beta link model behind `distbench predict` (prediction.h), kept
// free of reports so it can be checked against measured numbers on its own
// (docs/performance.md, "Prediction"). A message of n bytes over a link of
// B bit/s costs alpha + n·8/(eta·B): alpha is the fixed cost per message
// (latency plus software), eta the share of the nominal rate a transfer
// really gets (TCP/IP framing, ACKs on the reverse path, the collective's
// own phases). Nothing here knows CPUs or GPUs: compute comes from the run,
// the link from the options, so the same model serves either device.
#pragma once

#include <functional>
#include <limits>
#include <vector>

namespace distbench::report {

// The share of a link's nominal rate Gloo's ring allreduce reached over a
// tbf-shaped 100mbit veth on the 2-vCPU CI VM: 0.96 at 64 KiB, 0.91 at
// 512 KiB, 0.85 at 4 MiB (docs/performance.md). 0.87 puts each of those
// within 10 %, and the DDP and hybrid runs of benchmarks/whatif.py within
// 15 %.
inline constexpr double kDefaultLinkEfficiency = 0.87;

// A rate that does not limit anything: an unshaped link.
inline constexpr double kUnlimitedBitsPerSecond = std::numeric_limits<double>::infinity();

// Seconds to move `bytes` over a link of `bitsPerSecond` at `efficiency`;
// 0 for an unlimited link.
double wireSeconds(double bytes, double bitsPerSecond, double efficiency);

// What one allreduce of n bytes costs on p ranks, besides the wire:
// `alphaSeconds` per ring step, and `localSecondsPerByte` of copying and
// reducing (the slope of the calibration fit, less any wire time the
// calibration run itself had).
struct RingCost {
  double alphaSeconds = 0;
  double localSecondsPerByte = 0;
};

// Ring allreduce (reduce-scatter, then allgather): 2(p-1) steps, each rank
// sends and receives 2(p-1)/p of the buffer. On the slowest link of the
// ring, `bitsPerSecond`:
//   T(n) = max(2(p-1)·alpha + n·local, 2(p-1)/p · n·8/(eta·B))
// The slower of the two paces it: Gloo pipelines the ring in chunks, so
// copying and reducing one chunk overlaps moving the next (measured over
// tbf: the sum overshot the 64 KiB and 512 KiB allreduces by 17 % and 8 %,
// the larger term alone lands within 10 % at every size; and an unshaped
// calibration run's CPU contention, which inflates alpha and local, does not
// add to a link-bound run's time). One rank (p = 1) costs nothing.
double ringAllreduceSeconds(double bytes, int ranks, double bitsPerSecond, double efficiency,
                            const RingCost& cost);

// The wire share alone: 2(p-1)/p · n·8/(eta·B).
double ringWireSeconds(double bytes, int ranks, double bitsPerSecond, double efficiency);

// A ring moves at the pace of its slowest link (unlimited if `rates` is
// empty or all are unlimited).
double slowestLink(const std::vector<double>& bitsPerSecond);

// Least squares y = intercept + slope·x. One distinct x: the line through
// the origin and the mean (no intercept can be told apart from the slope).
// A negative intercept or slope is clamped to 0 and the other refitted, so
// a noisy calibration never predicts that more bytes cost less.
struct LineFit {
  double intercept = 0;
  double slope = 0;
  int points = 0;
};
LineFit fitLine(const std::vector<double>& x, const std::vector<double>& y);

// DDP's overlap of gradient allreduce with backward. Buckets in launch
// order, `launched` in seconds from the start of backward; they run one at
// a time (Gloo has two worker threads, so this is the conservative case):
//   done_i = max(launched_i, done_{i-1}) + T(bytes_i)
// Returns done of the last bucket (0 without buckets).
struct BucketLaunch {
  double bytes = 0;
  double launched = 0;
};
double replayBuckets(const std::vector<BucketLaunch>& buckets,
                     const std::function<double(double bytes)>& allreduceSeconds);

}  // namespace distbench::report
