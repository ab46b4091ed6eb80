// What the node's CUDA runtime says, read for real: on CI (no GPU, maybe no
// driver) the reason is what the worker will print; on a GPU machine the
// devices. Either way the answer must be consistent.
#include "distbench/worker/gpu/gpu_runtime.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include "distbench/worker/common/device_facts.h"
#include "distbench/worker/gpu/torch_cuda.h"

namespace distbench::worker {
namespace {

TEST(GpuRuntime, VersionStrings) {
  EXPECT_EQ(cudaVersionString(13000), "13.0");
  EXPECT_EQ(cudaVersionString(12040), "12.4");
  EXPECT_EQ(cudaVersionString(0), "");
  EXPECT_EQ(ncclVersionString(22809), "2.28.9");
  EXPECT_EQ(ncclVersionString(21803), "2.18.3");
  EXPECT_EQ(ncclVersionString(2804), "2.8.4");  // before NCCL 2.9's new scheme
  EXPECT_EQ(ncclVersionString(0), "");
  EXPECT_EQ(cudnnVersionString(91002), "9.10.2");
  EXPECT_EQ(cudnnVersionString(8907), "8.9.7");
  EXPECT_EQ(cudnnVersionString(0), "");
}

TEST(GpuRuntime, ProbeAnswersConsistently) {
  const GpuRuntime r = probeGpuRuntime();
  EXPECT_EQ(r.unavailable.empty(), !r.devices.empty()) << r.unavailable;
  if (builtWithCudaRuntime()) {
    EXPECT_GT(r.runtimeVersion, 0);
    // NCCL answers without a GPU, wherever the loader finds it.
    const bool loadable = dlopen("libnccl.so.2", RTLD_NOW) != nullptr;
    EXPECT_EQ(r.ncclVersion > 0, loadable);
    if (loadable) {
      EXPECT_GE(r.ncclVersion, 20000);
    }
    if (r.devices.empty()) {
      EXPECT_EQ(r.unavailable.rfind("cudaGetDeviceCount: ", 0), 0u) << r.unavailable;
    }
    for (const GpuDevice& d : r.devices) {
      EXPECT_FALSE(d.name.empty());
      EXPECT_GT(d.memoryBytes, 0);
    }
  } else {
    EXPECT_NE(r.unavailable.find("-DDISTBENCH_CUDA=ON"), std::string::npos) << r.unavailable;
    EXPECT_TRUE(r.devices.empty());
  }
}

TEST(TorchCuda, ABuildWithoutCudaSaysWhichLibTorchAndWhatToUse) {
  const std::string why = torchCudaUnavailable();
  if (why.empty()) GTEST_SKIP() << "this build's LibTorch has CUDA";
  EXPECT_NE(why.find("without CUDA"), std::string::npos) << why;
  EXPECT_NE(why.find("worker-cuda.Dockerfile"), std::string::npos) << why;
  EXPECT_EQ(cudnnVersion(), 0);
}

}  // namespace
}  // namespace distbench::worker
