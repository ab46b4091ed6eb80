#include "distbench/worker/common/master_output.h"

#include <torch/version.h>

#include <cstdio>
#include <mutex>

#include "distbench/worker/common/device_facts.h"

namespace distbench::worker {
namespace {

std::mutex printedMutex;
std::string& printed() {
  static std::string* text = new std::string;  // printed until exit, from any thread
  return *text;
}

}  // namespace

void printInfo(const api::DistBenchmark& b, const std::string& topology,
               const std::vector<DeviceFacts>& gpus) {
  printNow(std::string("* distbench version: ") + DISTBENCH_VERSION + "\n" +
           "* PyTorch (LibTorch) version: " + TORCH_VERSION + "\n" + formatDeviceFacts(gpus) +
           "* Distributed backend: " + api::toString(b.spec.runtime.backend) + "\n" +
           "* Device: " + api::toString(b.spec.runtime.device) + "\n" + "* Topology: " + topology +
           "\n\n");
}

void printSuiteBanner(const api::DistBenchmark& b, const char* title,
                      const std::vector<DeviceFacts>& gpus) {
  const int ranks = b.spec.topology.trainers;
  printNow(std::string("-----------------------------------\n") + title +
           "\n-----------------------------------\n\n");
  printInfo(b, std::to_string(ranks) + (ranks == 1 ? " rank" : " ranks") + ", 1 master", gpus);
}

void printNow(const std::string& text) {
  std::lock_guard<std::mutex> lock(printedMutex);
  printed() += text;
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
}

std::string printedSoFar() {
  std::lock_guard<std::mutex> lock(printedMutex);
  return printed();
}

}  // namespace distbench::worker
