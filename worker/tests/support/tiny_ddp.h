// The smallest DDP sweep the worker tests run for real: smallcnn, batch 4
// at 32x32, one warm-up and three measured iterations. Tests change what
// they are about (iterations, buckets, timeouts) on the copy they get.
#pragma once

#include <string>

#include "distbench/api/presets.h"

namespace distbench::worker::testing {

inline api::DistBenchmark tinyDdpSweep(const std::string& name, int trainers) {
  api::DistBenchmark b = api::preset("ddp-cpu");
  b.metadata.name = name;
  b.spec.topology.trainers = trainers;
  api::DDPSpec& ddp = b.spec.benchmark.ddp;
  ddp.models = {"smallcnn"};
  ddp.batchSize = 4;
  ddp.imageSize = 32;
  ddp.warmupIterations = 1;
  ddp.iterations = 3;
  return b;
}

}  // namespace distbench::worker::testing
