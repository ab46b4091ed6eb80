#include "distbench/worker/common/progress_reporter.h"

#include <algorithm>
#include <cstdio>

#include "distbench/api/progress_line.h"

namespace distbench::worker {

ProgressReporter::ProgressReporter(bool enabled, std::string unit, long total, Sink sink,
                                   std::chrono::milliseconds interval)
    : enabled_(enabled),
      unit_(std::move(unit)),
      total_(std::max(0L, total)),
      sink_(std::move(sink)),
      interval_(interval) {
  if (!sink_) {
    sink_ = [](const std::string& line) {
      // One write, so that a line never interleaves with another thread's log.
      std::fputs(line.c_str(), stderr);
      std::fflush(stderr);
    };
  }
}

void ProgressReporter::advance(long steps) {
  done_ = std::min(total_, done_ + std::max(0L, steps));
  if (!enabled_) return;
  const Clock::time_point now = Clock::now();
  if (printedDone_ == done_) return;
  if (printedDone_ < 0 || done_ <= kPromptSteps || done_ == total_ || now - lastPrint_ >= interval_)
    print(now);
}

void ProgressReporter::beginStep() {
  advance(stepOpen_ ? 1 : 0);
  stepOpen_ = true;
}

void ProgressReporter::endStep() {
  if (!stepOpen_) return;
  stepOpen_ = false;
  advance(1);
}

void ProgressReporter::finish() {
  stepOpen_ = false;
  advance(total_ - done_);
}

void ProgressReporter::print(Clock::time_point now) {
  sink_(api::formatProgressLine({done_, total_, unit_}));
  printedDone_ = done_;
  lastPrint_ = now;
}

}  // namespace distbench::worker
