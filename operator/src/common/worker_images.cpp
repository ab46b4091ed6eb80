#include "distbench/operator/common/worker_images.h"

namespace distbench::op {

// DISTBENCH_VERSION is the project's version (top CMakeLists.txt), which the
// chart's appVersion and the image tags of dockerfiles/build-images.sh follow.
std::string defaultCpuWorkerImage() { return std::string("distbench/worker:") + DISTBENCH_VERSION; }

std::string defaultCudaWorkerImage() {
  return std::string("distbench/worker-cuda:") + DISTBENCH_VERSION;
}

std::string workerImage(const api::DistBenchmark& b, const api::PodTemplate& t,
                        const WorkerImages& images) {
  if (!t.image.empty()) return t.image;
  if (!b.spec.runtime.image.empty()) return b.spec.runtime.image;
  return b.spec.runtime.device == api::Device::CUDA ? images.cuda : images.cpu;
}

}  // namespace distbench::op
