#include "distbench/worker/gpu/step_clock.h"

#include <gtest/gtest.h>

#include <thread>

#include "distbench/worker/gpu/compute_device.h"

namespace distbench::worker {
namespace {

TEST(StepClock, CpuMarksAreTheSteadyClock) {
  const std::shared_ptr<StepClock> clock = ComputeDevice::cpu().newClock();
  clock->beginStep();
  const StepClock::Mark a = clock->mark();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const StepClock::Mark b = clock->mark();
  clock->settle(b, std::chrono::seconds(1), "nothing");
  EXPECT_GE(clock->seconds(a, b), 0.019);
  EXPECT_LT(clock->seconds(a, b), 5.0);
  EXPECT_LE(clock->seconds(b, a), 0.0);
}

TEST(StepClock, MarksFromOtherThreadsCount) {
  const std::shared_ptr<StepClock> clock = makeCpuClock();
  clock->beginStep();
  const StepClock::Mark a = clock->mark();
  StepClock::Mark b = -1;
  std::thread([&] { b = clock->mark(); }).join();
  EXPECT_GE(clock->seconds(a, b), 0.0);
  clock->beginStep();  // marks of the last step are gone
  EXPECT_THROW(clock->seconds(a, b), std::out_of_range);
}

TEST(ComputeDevice, CpuIsNamedAndNeedsNoSynchronize) {
  const ComputeDevice cpu = ComputeDevice::cpu();
  EXPECT_FALSE(cpu.isCuda());
  EXPECT_EQ(cpu.name(), "cpu");
  EXPECT_EQ(cpu.torchDevice(), c10::Device(c10::DeviceType::CPU));
  cpu.synchronize(std::chrono::milliseconds(1), "nothing");
}

}  // namespace
}  // namespace distbench::worker
