// Which image a rank's pod runs. A resource may name one (its role
// template's image, else spec.runtime.image); most name none and get the
// operator's default for the device, so a resource does not need to know
// which registry, version or CUDA build a cluster runs. The chart sets the
// defaults (worker.image, worker.cudaImage) as --worker-image and
// --cuda-worker-image.
#pragma once

#include <string>

#include "distbench/api/benchmark_spec.h"

namespace distbench::op {

// The images dockerfiles/ builds, at the operator's own version.
std::string defaultCpuWorkerImage();
std::string defaultCudaWorkerImage();

struct WorkerImages {
  std::string cpu = defaultCpuWorkerImage();    // --worker-image
  std::string cuda = defaultCudaWorkerImage();  // --cuda-worker-image
};

// The image of a pod of `b` whose role template is `t`: the template's, then
// spec.runtime.image, then `images` by spec.runtime.device. Every role of a
// CUDA run gets the CUDA image, so one image serves a gang even where only
// its trainers have a GPU.
std::string workerImage(const api::DistBenchmark& b, const api::PodTemplate& t,
                        const WorkerImages& images);

}  // namespace distbench::op
