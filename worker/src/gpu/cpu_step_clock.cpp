#include <mutex>
#include <vector>

#include "distbench/worker/gpu/step_clock.h"

namespace distbench::worker {
namespace {

class CpuStepClock final : public StepClock {
 public:
  void beginStep() override {
    std::lock_guard<std::mutex> lock(mutex_);
    marks_.clear();
  }
  Mark mark() override {
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard<std::mutex> lock(mutex_);
    marks_.push_back(now);
    return static_cast<Mark>(marks_.size() - 1);
  }
  void settle(Mark, std::chrono::milliseconds, const std::string&) override {}
  double seconds(Mark from, Mark to) override {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::chrono::duration<double>(marks_.at(static_cast<size_t>(to)) -
                                         marks_.at(static_cast<size_t>(from)))
        .count();
  }

 private:
  std::mutex mutex_;
  std::vector<std::chrono::steady_clock::time_point> marks_;
};

}  // namespace

std::unique_ptr<StepClock> makeCpuClock() { return std::make_unique<CpuStepClock>(); }

}  // namespace distbench::worker
