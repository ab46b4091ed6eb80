#include "distbench/worker/gpu/cuda_event_clock.h"

#include <cuda_runtime_api.h>

#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace distbench::worker {
namespace {

void check(cudaError_t e, const char* call) {
  if (e == cudaSuccess) return;
  cudaGetLastError();  // clear it, so the next call does not report it again
  throw std::runtime_error(std::string(call) + ": " + cudaGetErrorName(e) + ": " +
                           cudaGetErrorString(e));
}

// Spins briefly (an op of a few microseconds should not pay a sleep), then
// sleeps in short steps; the cost is the last poll's latency, never the
// measurement: the event's own timestamp is what seconds() reads.
void pollUntilDone(cudaEvent_t event, std::chrono::milliseconds timeout, const std::string& what) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (long polls = 0;; ++polls) {
    const cudaError_t e = cudaEventQuery(event);
    if (e == cudaSuccess) return;
    if (e != cudaErrorNotReady) check(e, ("cudaEventQuery (" + what + ")").c_str());
    if (std::chrono::steady_clock::now() >= deadline) {
      throw std::runtime_error("timed out after " + std::to_string(timeout.count() / 1000) +
                               " s waiting for " + what);
    }
    if (polls < 2000) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }
}

class CudaEventClock final : public StepClock {
 public:
  CudaEventClock(int device, std::function<void*()> currentStream)
      : device_(device), currentStream_(std::move(currentStream)) {
    check(cudaSetDevice(device_), "cudaSetDevice");
  }
  ~CudaEventClock() override {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
  }

  void beginStep() override {
    std::lock_guard<std::mutex> lock(mutex_);
    used_ = 0;
  }

  Mark mark() override {
    // A completion callback runs on a thread of LibTorch's whose current
    // device may be unset; the event and the stream are on device_.
    check(cudaSetDevice(device_), "cudaSetDevice");
    cudaStream_t stream = static_cast<cudaStream_t>(currentStream_());
    std::lock_guard<std::mutex> lock(mutex_);
    if (used_ == events_.size()) {
      cudaEvent_t e = nullptr;
      check(cudaEventCreate(&e), "cudaEventCreate");
      events_.push_back(e);
    }
    cudaEvent_t e = events_[used_];
    check(cudaEventRecord(e, stream), "cudaEventRecord");
    return static_cast<Mark>(used_++);
  }

  void settle(Mark m, std::chrono::milliseconds timeout, const std::string& what) override {
    pollUntilDone(event(m), timeout, what);
  }

  double seconds(Mark from, Mark to) override {
    float ms = 0;
    check(cudaEventElapsedTime(&ms, event(from), event(to)), "cudaEventElapsedTime");
    return ms / 1000.0;
  }

 private:
  cudaEvent_t event(Mark m) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (m < 0 || static_cast<size_t>(m) >= used_) {
      throw std::logic_error("StepClock: mark " + std::to_string(m) + " is not of this step");
    }
    return events_[static_cast<size_t>(m)];
  }

  const int device_;
  const std::function<void*()> currentStream_;
  std::mutex mutex_;
  std::vector<cudaEvent_t> events_;
  size_t used_ = 0;
};

}  // namespace

std::unique_ptr<StepClock> makeCudaEventClock(int device, std::function<void*()> currentStream) {
  return std::make_unique<CudaEventClock>(device, std::move(currentStream));
}

void waitForCudaStream(int device, void* stream, std::chrono::milliseconds timeout,
                       const std::string& what) {
  check(cudaSetDevice(device), "cudaSetDevice");
  cudaEvent_t e = nullptr;
  check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreateWithFlags");
  struct Destroy {
    cudaEvent_t e;
    ~Destroy() { cudaEventDestroy(e); }
  } destroy{e};
  check(cudaEventRecord(e, static_cast<cudaStream_t>(stream)), "cudaEventRecord");
  pollUntilDone(e, timeout, what);
}

}  // namespace distbench::worker
