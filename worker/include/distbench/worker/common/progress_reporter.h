// A trainer's progress lines (api/progress_line.h) on stderr: what
// `distbench run` shows and the operator reads into status.progress. The
// first steps (up to kPromptSteps) each as it is done, so that a reader
// (a test waiting for training to be under way) sees it start at once; then
// at most one line a second, so a fast loop does not fill the log; the last
// (done == total) always, so a reader never sees a run end short of its
// total.
#pragma once

#include <chrono>
#include <functional>
#include <string>

namespace distbench::worker {

class ProgressReporter {
 public:
  static constexpr long kPromptSteps = 3;
  using Clock = std::chrono::steady_clock;
  using Sink = std::function<void(const std::string& line)>;

  // `enabled` false (DISTBENCH_PROGRESS unset): prints nothing. `total`
  // steps of `unit` (plural: "iterations"). The sink is stderr unless a test
  // gives one.
  ProgressReporter(bool enabled, std::string unit, long total, Sink sink = {},
                   std::chrono::milliseconds interval = std::chrono::seconds(1));

  // `steps` more are done.
  void advance(long steps = 1);
  // For loops that call back before each step rather than after: a step
  // begins, so the one begun before it, if any, is done (the first prints
  // the starting line). endStep(): the step begun last is done.
  void beginStep();
  void endStep();
  // Every step is done (a loop that ends early, as an adaptive plan does).
  void finish();

  long done() const { return done_; }

 private:
  void print(Clock::time_point now);

  bool enabled_;
  std::string unit_;
  long total_;
  Sink sink_;
  std::chrono::milliseconds interval_;
  long done_ = 0;
  long printedDone_ = -1;  // -1: nothing printed yet
  bool stepOpen_ = false;  // beginStep() without its step counted yet
  Clock::time_point lastPrint_{};
};

}  // namespace distbench::worker
