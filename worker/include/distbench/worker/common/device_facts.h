// What a GPU rank tells the master about its device, for the banner and the
// report (versions "cuda", "cudaDriver", "nccl", "cudnn"; host.gpus): the
// trainers own the GPUs, the master computes on none, so each trainer
// publishes its facts through the store once placed and the master reads
// them all. Nothing is published on CPU runs.
#pragma once

#include <c10/util/intrusive_ptr.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "distbench/report/report.h"

namespace c10d {
class Store;
}

namespace distbench::worker {

struct DeviceFacts {
  std::string host;      // hostname of the trainer's node
  std::string gpu;       // "NVIDIA H100 80GB HBM3"
  std::string pciBusId;  // with host, tells shared GPUs apart
  int64_t memoryBytes = 0;
  int runtimeVersion = 0;  // CUDA runtime, 13000
  int driverVersion = 0;   // what the driver supports, 13000
  int ncclVersion = 0;     // 22809
  long cudnnVersion = 0;   // 91002; 0 without cuDNN
};

std::string encodeDeviceFacts(const DeviceFacts& facts);
// Throws std::runtime_error on text encodeDeviceFacts did not write.
DeviceFacts decodeDeviceFacts(const std::string& text);

void publishDeviceFacts(c10d::Store& store, int trainer, const DeviceFacts& facts);
// Trainers 0..trainers-1's facts, waiting at most `timeout` in all; throws
// std::runtime_error naming the first trainer that has published none.
std::vector<DeviceFacts> readDeviceFacts(c10d::Store& store, int trainers,
                                         std::chrono::milliseconds timeout);

// Versions and GPU names into the report's envelope: the versions of
// trainer 0 (the banner says when trainers differ), and one host.gpus entry
// per distinct GPU (host and PCI bus), in trainer order.
void addDeviceFacts(report::Report& report, const std::vector<DeviceFacts>& facts);

// The banner's lines ("* CUDA version: 13.0 (driver supports 13.0)", ...);
// empty for no facts.
std::string formatDeviceFacts(const std::vector<DeviceFacts>& facts);

// 13000 -> "13.0", 12040 -> "12.4"; "" for 0.
std::string cudaVersionString(int version);
// 22809 -> "2.28.9" (NCCL >= 2.9 codes versions as major*10000 + minor*100
// + patch, older ones as major*1000 + minor*100 + patch); "" for 0.
std::string ncclVersionString(int version);
// 91002 -> "9.10.2" (cuDNN 9 codes major*10000 + minor*100 + patch; 8 and
// older major*1000 + minor*100 + patch); "" for 0.
std::string cudnnVersionString(long version);

}  // namespace distbench::worker
