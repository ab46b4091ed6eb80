#include "distbench/worker/gpu/compute_device.h"

#include "distbench/worker/gpu/torch_cuda.h"

namespace distbench::worker {

ComputeDevice ComputeDevice::cuda(int index) {
  useCudaDevice(index);
  return ComputeDevice(true, index);
}

c10::Device ComputeDevice::torchDevice() const {
  return cuda_ ? c10::Device(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(index_))
               : c10::Device(c10::DeviceType::CPU);
}

std::string ComputeDevice::name() const {
  return cuda_ ? "cuda:" + std::to_string(index_) : "cpu";
}

std::shared_ptr<StepClock> ComputeDevice::newClock() const {
  return cuda_ ? makeCudaClock(index_) : makeCpuClock();
}

void ComputeDevice::synchronize(std::chrono::milliseconds timeout, const std::string& what) const {
  if (cuda_) synchronizeCurrentStream(index_, timeout, what);
}

}  // namespace distbench::worker
