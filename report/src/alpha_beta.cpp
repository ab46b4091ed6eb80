#include "distbench/report/alpha_beta.h"

#include <algorithm>
#include <cmath>

namespace distbench::report {

double wireSeconds(double bytes, double bitsPerSecond, double efficiency) {
  if (!std::isfinite(bitsPerSecond) || bytes <= 0) return 0;
  return bytes * 8.0 / (efficiency * bitsPerSecond);
}

long long tbfBurstBytes(double bitsPerSecond) {
  const long long oneMillisecond = std::llround(bitsPerSecond / 8.0 / 1000.0);
  return std::max(32LL * 1024, oneMillisecond);
}

TokenBucketLink::TokenBucketLink(double bitsPerSecond, double efficiency, double burstBytes)
    : bytesPerSecond_(std::isfinite(bitsPerSecond) ? efficiency * bitsPerSecond / 8.0
                                                   : std::numeric_limits<double>::infinity()),
      burst_(std::max(0.0, burstBytes)),
      tokens_(burst_) {}

double TokenBucketLink::send(double start, double bytes) {
  if (!std::isfinite(bytesPerSecond_) || bytes <= 0) return start;
  const double begin = std::max(start, idleSince_);
  tokens_ = std::min(burst_, tokens_ + (begin - idleSince_) * bytesPerSecond_);
  const double free = std::min(tokens_, bytes);
  tokens_ -= free;
  idleSince_ = begin + (bytes - free) / bytesPerSecond_;
  return idleSince_;
}

double smoothMax(double a, double b) {
  a = std::max(0.0, a);
  b = std::max(0.0, b);
  if (a == 0 || b == 0) return a + b;
  return std::pow(std::pow(a, kTransitionExponent) + std::pow(b, kTransitionExponent),
                  1.0 / kTransitionExponent);
}

double ringWireSeconds(double bytes, int ranks, double bitsPerSecond, double efficiency) {
  if (ranks < 2) return 0;
  const double share = 2.0 * (ranks - 1) / ranks;
  return share * wireSeconds(bytes, bitsPerSecond, efficiency);
}

double slowestLink(const std::vector<double>& bitsPerSecond) {
  double slowest = kUnlimitedBitsPerSecond;
  for (double rate : bitsPerSecond) slowest = std::min(slowest, rate);
  return slowest;
}

LineFit fitLine(const std::vector<double>& x, const std::vector<double>& y) {
  LineFit fit;
  const size_t n = std::min(x.size(), y.size());
  fit.points = static_cast<int>(n);
  if (n == 0) return fit;
  double sx = 0, sy = 0;
  for (size_t i = 0; i < n; ++i) {
    sx += x[i];
    sy += y[i];
  }
  const double mx = sx / n, my = sy / n;
  double sxx = 0, sxy = 0;
  for (size_t i = 0; i < n; ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
  }
  const bool oneX = sxx <= 1e-12 * std::max(1.0, mx * mx);
  if (!oneX) {
    fit.slope = sxy / sxx;
    fit.intercept = my - fit.slope * mx;
  }
  if (oneX || fit.intercept < 0) {
    // Through the origin: slope = Σxy / Σxx.
    double xy = 0, xx = 0;
    for (size_t i = 0; i < n; ++i) {
      xy += x[i] * y[i];
      xx += x[i] * x[i];
    }
    fit.intercept = 0;
    fit.slope = xx > 0 ? xy / xx : 0;
  }
  if (fit.slope < 0) {
    fit.slope = 0;
    fit.intercept = std::max(0.0, my);
  }
  return fit;
}

double replayBuckets(const std::vector<BucketLaunch>& buckets,
                     const std::function<double(double bytes)>& allreduceSeconds) {
  double done = 0;
  for (const BucketLaunch& bucket : buckets) {
    done = std::max(bucket.launched, done) + allreduceSeconds(bucket.bytes);
  }
  return done;
}

}  // namespace distbench::report
