// A deliberately small classifier so DDP benchmarks finish in seconds on a CPU-only runner, where
// a ResNet step takes longer than the communication being measured.
#pragma once

#include <cstdint>
#include <memory>

#include "distbench/worker/ddp/models/image_model.h"

namespace distbench::worker {

std::shared_ptr<ImageModel> makeSmallCnn(int64_t numClasses);

}  // namespace distbench::worker
