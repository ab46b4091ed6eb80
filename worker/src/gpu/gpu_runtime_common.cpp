// The version strings both implementations of gpu_runtime.h share.
#include "gpu/gpu_runtime.h"

namespace distbench::worker {

std::string cudaVersionString(int version) {
  if (version <= 0) return "";
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string ncclVersionString(int version) {
  if (version <= 0) return "";
  // NCCL_VERSION_CODE changed scheme at 2.9: 2.8.4 is 2804, 2.9.6 is 20906.
  const int major = version >= 10000 ? version / 10000 : version / 1000;
  const int minor = version >= 10000 ? version % 10000 / 100 : version % 1000 / 100;
  const int patch = version % 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

}  // namespace distbench::worker
