#include "distbench/worker/hybrid/ps_service_stats.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace distbench::worker {
namespace {

// Per op: a presence flag and report::Summary's ten fields.
constexpr size_t kSummaryWords = 11;
constexpr size_t kStatsWords = 3 * kSummaryWords + 2;

void putSummary(std::vector<double>& flat, const std::optional<report::Summary>& s) {
  if (!s) {
    flat.insert(flat.end(), kSummaryWords, 0.0);
    return;
  }
  flat.insert(flat.end(), {1.0, static_cast<double>(s->count), s->p50, s->p75, s->p90, s->p95,
                           s->p99, s->min, s->max, s->mean, s->stdev});
}

std::optional<report::Summary> takeSummary(const double* w) {
  if (w[0] == 0) return std::nullopt;
  report::Summary s;
  s.count = static_cast<size_t>(w[1]);
  s.p50 = w[2];
  s.p75 = w[3];
  s.p90 = w[4];
  s.p95 = w[5];
  s.p99 = w[6];
  s.min = w[7];
  s.max = w[8];
  s.mean = w[9];
  s.stdev = w[10];
  return s;
}

std::optional<report::Summary> summaryOf(const std::vector<double>& samples) {
  if (samples.empty()) return std::nullopt;
  return report::summarize(samples);
}

}  // namespace

std::vector<double> ParameterServerStats::flatten() const {
  std::vector<double> flat;
  putSummary(flat, lookup);
  putSummary(flat, pushGrad);
  putSummary(flat, step);
  flat.push_back(bytesReceivedPerStep);
  flat.push_back(bytesSentPerStep);
  flat.insert(flat.end(), serviceSamples.begin(), serviceSamples.end());
  return flat;
}

ParameterServerStats ParameterServerStats::unflatten(const std::vector<double>& flat) {
  if (flat.size() < kStatsWords) {
    throw std::runtime_error("parameter server stats: expected at least " +
                             std::to_string(kStatsWords) + " values, got " +
                             std::to_string(flat.size()));
  }
  ParameterServerStats s;
  s.lookup = takeSummary(&flat[0]);
  s.pushGrad = takeSummary(&flat[kSummaryWords]);
  s.step = takeSummary(&flat[2 * kSummaryWords]);
  s.bytesReceivedPerStep = flat[3 * kSummaryWords];
  s.bytesSentPerStep = flat[3 * kSummaryWords + 1];
  s.serviceSamples.assign(flat.begin() + kStatsWords, flat.end());
  return s;
}

ServiceRecorder::ServiceRecorder(int64_t warmupSteps, int64_t measuredSteps)
    : warmupSteps_(warmupSteps),
      measuredSteps_(measuredSteps),
      stepServiceSeconds_(static_cast<size_t>(std::max<int64_t>(0, measuredSteps)), 0.0),
      stepRequests_(stepServiceSeconds_.size(), 0) {}

void ServiceRecorder::record(Op op, int64_t step, double seconds, int64_t bytesReceived,
                             int64_t bytesSent) {
  if (step < warmupSteps_) return;
  std::vector<double>* samples = nullptr;
  switch (op) {
    case Op::Lookup:
      samples = &lookup_;
      break;
    case Op::PushGrad:
      samples = &pushGrad_;
      break;
    case Op::Step:
      samples = &step_;
      break;
    default:
      return;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  samples->push_back(seconds);
  const int64_t measured = step - warmupSteps_;
  if (measured < static_cast<int64_t>(stepRequests_.size())) {
    stepServiceSeconds_[static_cast<size_t>(measured)] += seconds;
    ++stepRequests_[static_cast<size_t>(measured)];
  }
  bytesReceived_ += bytesReceived;
  bytesSent_ += bytesSent;
}

ParameterServerStats ServiceRecorder::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  ParameterServerStats s;
  s.lookup = summaryOf(lookup_);
  s.pushGrad = summaryOf(pushGrad_);
  s.step = summaryOf(step_);
  for (size_t i = 0; i < stepRequests_.size(); ++i) {
    if (stepRequests_[i] > 0) s.serviceSamples.push_back(stepServiceSeconds_[i] / stepRequests_[i]);
  }
  if (measuredSteps_ > 0) {
    s.bytesReceivedPerStep = static_cast<double>(bytesReceived_) / measuredSteps_;
    s.bytesSentPerStep = static_cast<double>(bytesSent_) / measuredSteps_;
  }
  return s;
}

}  // namespace distbench::worker
