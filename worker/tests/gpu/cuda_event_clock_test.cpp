// The CUDA-event clock against the CUDA runtime alone (compiled where the
// build found it; ctest label `gpu`). Without a GPU it must say why; with
// one, it must time what the stream does, not when the host queued it: a
// host function that sleeps on the stream stands in for a kernel, so the
// test needs no LibTorch CUDA and no nvcc.
#include "distbench/worker/gpu/cuda_event_clock.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "distbench/worker/gpu/gpu_runtime.h"

namespace distbench::worker {
namespace {

bool haveGpu() { return !probeGpuRuntime().devices.empty(); }

void CUDART_CB sleepOnStream(void* milliseconds) {
  std::this_thread::sleep_for(std::chrono::milliseconds(*static_cast<int*>(milliseconds)));
}

class CudaStream {
 public:
  CudaStream() { EXPECT_EQ(cudaStreamCreate(&stream_), cudaSuccess); }
  ~CudaStream() { cudaStreamDestroy(stream_); }
  cudaStream_t get() const { return stream_; }
  void sleep(int* milliseconds) {
    ASSERT_EQ(cudaLaunchHostFunc(stream_, sleepOnStream, milliseconds), cudaSuccess);
  }

 private:
  cudaStream_t stream_ = nullptr;
};

TEST(CudaEventClock, WithoutAGpuSaysWhy) {
  if (haveGpu()) GTEST_SKIP() << "this machine has a GPU";
  try {
    makeCudaEventClock(0, [] { return static_cast<void*>(nullptr); });
    FAIL() << "a clock on a machine without a GPU";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cudaSetDevice: cuda", 0), 0u) << e.what();
  }
}

TEST(CudaEventClock, TimesTheStreamNotTheHost) {
  if (!haveGpu()) GTEST_SKIP() << "no GPU: " << probeGpuRuntime().unavailable;
  CudaStream stream;
  auto clock = makeCudaEventClock(0, [&] { return static_cast<void*>(stream.get()); });
  clock->beginStep();
  static int ms = 100;
  const auto hostStart = std::chrono::steady_clock::now();
  const StepClock::Mark start = clock->mark();
  stream.sleep(&ms);
  const StepClock::Mark end = clock->mark();
  const double host = std::chrono::duration<double>(std::chrono::steady_clock::now() - hostStart)
                          .count();
  clock->settle(end, std::chrono::seconds(10), "the sleeping stream");
  EXPECT_GE(clock->seconds(start, end), 0.095);
  EXPECT_LT(host, 0.05) << "queueing took as long as the work";
}

TEST(CudaEventClock, SettleGivesUpAfterItsTimeoutNamingWhat) {
  if (!haveGpu()) GTEST_SKIP() << "no GPU: " << probeGpuRuntime().unavailable;
  CudaStream stream;
  auto clock = makeCudaEventClock(0, [&] { return static_cast<void*>(stream.get()); });
  clock->beginStep();
  static int ms = 2000;
  stream.sleep(&ms);
  const StepClock::Mark end = clock->mark();
  try {
    clock->settle(end, std::chrono::milliseconds(100), "the sleeping stream");
    FAIL() << "settled before the stream finished";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("waiting for the sleeping stream"), std::string::npos)
        << e.what();
  }
  waitForCudaStream(0, stream.get(), std::chrono::seconds(10), "the end of the test");
}

}  // namespace
}  // namespace distbench::worker
