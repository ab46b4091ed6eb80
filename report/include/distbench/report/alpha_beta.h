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
// 512 KiB, 0.85 at 4 MiB (docs/performance.md). With 0.87 the DDP and
// hybrid points of benchmarks/whatif.py, 50mbit to 3200mbit, land within
// 6 % at the measured world size (0.91 was as good at 2 trainers and worse
// at 4).
inline constexpr double kDefaultLinkEfficiency = 0.87;

// A rate that does not limit anything: an unshaped link.
inline constexpr double kUnlimitedBitsPerSecond = std::numeric_limits<double>::infinity();

// The bucket of the token-bucket filter `distbench run --links` shapes a link
// with (tbf, or htb for pair links): max(32 KiB, one millisecond at the
// rate). Too small a bucket silently caps high rates (5gbit with 32 KiB
// reached 2.46 Gbit/s on the 2-vCPU CI VM); the price is that a link idle
// for a millisecond passes that many bytes at once. A real NIC has no such
// burst: `distbench predict` applies it only when asked (--link-burst tbf).
long long tbfBurstBytes(double bitsPerSecond);

// One direction of a link shaped by a token bucket, followed through a step
// as a fluid: tokens refill at the rate while the link is idle, up to
// `burstBytes`, and bytes pass at once while tokens last, then at the rate.
// burstBytes 0 is a plain link of that rate. Unlimited rate: every send
// costs nothing.
class TokenBucketLink {
 public:
  TokenBucketLink(double bitsPerSecond, double efficiency, double burstBytes);
  // Bytes handed to the link at `start` (seconds; sends are taken in the
  // order they are made, each after the one before it): when the last byte
  // has left.
  double send(double start, double bytes);

 private:
  double bytesPerSecond_;
  double burst_;
  double tokens_;
  double idleSince_ = 0;
};

// The transition between two costs that overlap imperfectly (a link and the
// CPU work of moving its bytes, a step's compute and its exposed
// communication): (a^k + b^k)^(1/k) with k = kTransitionExponent. k = 1 is
// their sum, k -> infinity the larger alone. Over a sweep of
// benchmarks/whatif.py's 56 points, the sum missed by up to 16 %, the larger
// alone by up to 14 %, k = 1.5 by 9 % (docs/performance.md, "Prediction").
inline constexpr double kTransitionExponent = 1.5;
double smoothMax(double a, double b);

// Seconds to move `bytes` over a link of `bitsPerSecond` at `efficiency`;
// 0 for an unlimited link.
double wireSeconds(double bytes, double bitsPerSecond, double efficiency);

// Ring allreduce (reduce-scatter, then allgather) on p ranks: each rank
// sends and receives 2(p-1)/p of the buffer, on the ring's slowest link:
// 2(p-1)/p · n·8/(eta·B). One rank (p = 1) moves nothing.
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
