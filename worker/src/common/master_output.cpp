#include "distbench/worker/common/master_output.h"

#include <torch/version.h>

#include <cstdio>

#include "distbench/worker/common/device_facts.h"

namespace distbench::worker {

void printInfo(const api::DistBenchmark& b, const std::string& topology,
               const std::vector<DeviceFacts>& gpus) {
  std::printf("* distbench version: %s\n", DISTBENCH_VERSION);
  std::printf("* PyTorch (LibTorch) version: %s\n", TORCH_VERSION);
  std::fputs(formatDeviceFacts(gpus).c_str(), stdout);
  std::printf("* Distributed backend: %s\n", api::toString(b.spec.runtime.backend));
  std::printf("* Device: %s\n", api::toString(b.spec.runtime.device));
  std::printf("* Topology: %s\n\n", topology.c_str());
}

void printSuiteBanner(const api::DistBenchmark& b, const char* title,
                      const std::vector<DeviceFacts>& gpus) {
  const int ranks = b.spec.topology.trainers;
  std::printf("-----------------------------------\n");
  std::printf("%s\n", title);
  std::printf("-----------------------------------\n\n");
  printInfo(b, std::to_string(ranks) + (ranks == 1 ? " rank" : " ranks") + ", 1 master", gpus);
  std::fflush(stdout);
}

void printNow(const std::string& text) {
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
}

}  // namespace distbench::worker
