#include "distbench/worker/gpu/gpu_placement.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

#include "distbench/api/worker_env.h"

namespace distbench::worker {
namespace {

PlacementRequest request(api::Backend backend, int localRank, int localWorldSize, int gpus) {
  PlacementRequest r;
  r.backend = backend;
  r.rankLabel = "trainer" + std::to_string(localRank) + " (rank " + std::to_string(localRank + 1) +
                ")";
  r.localRank = localRank;
  r.localWorldSize = localWorldSize;
  r.visibleGpus = gpus;
  return r;
}

std::string refusal(const PlacementRequest& r) {
  try {
    placeOnGpu(r);
  } catch (const PlacementError& e) {
    return e.what();
  }
  return "";
}

TEST(GpuPlacement, NcclTakesTheGpuOfItsLocalRank) {
  for (int rank = 0; rank < 8; ++rank) {
    EXPECT_EQ(placeOnGpu(request(api::Backend::NCCL, rank, 8, 8)), rank);
  }
  // One rank per pod: GPU 0, whatever the node's numbering outside the pod.
  EXPECT_EQ(placeOnGpu(request(api::Backend::NCCL, 0, 1, 1)), 0);
}

// NCCL cannot put two ranks on one GPU; refused before any collective,
// naming both numbers and the way out.
TEST(GpuPlacement, MoreNcclRanksThanGpusIsRefusedWithTheNumbers) {
  PlacementRequest r = request(api::Backend::NCCL, 1, 4, 1);
  r.cudaVisibleDevices = "0";
  const std::string why = refusal(r);
  EXPECT_NE(why.find("spec.runtime.backend: nccl"), std::string::npos) << why;
  EXPECT_NE(why.find("LOCAL_WORLD_SIZE=4"), std::string::npos) << why;
  EXPECT_NE(why.find("sees 1 GPU "), std::string::npos) << why;
  EXPECT_NE(why.find("CUDA_VISIBLE_DEVICES=0"), std::string::npos) << why;
  EXPECT_NE(why.find("backend gloo"), std::string::npos) << why;
  EXPECT_NE(why.find("trainer1 (rank 2)"), std::string::npos) << why;
}

// Gloo stages CUDA tensors through the host: ranks may share, round robin.
TEST(GpuPlacement, GlooRanksShareGpusRoundRobin) {
  EXPECT_EQ(placeOnGpu(request(api::Backend::Gloo, 0, 4, 1)), 0);
  EXPECT_EQ(placeOnGpu(request(api::Backend::Gloo, 3, 4, 1)), 0);
  EXPECT_EQ(placeOnGpu(request(api::Backend::Gloo, 3, 4, 2)), 1);
  EXPECT_EQ(placeOnGpu(request(api::Backend::Gloo, 2, 4, 2)), 0);
}

TEST(GpuPlacement, NoGpuNamesTheDeviceFieldAndTheRuntimesReason) {
  PlacementRequest r = request(api::Backend::Gloo, 0, 1, 0);
  r.unavailable = "cudaGetDeviceCount: cudaErrorNoDevice: no CUDA-capable device is detected";
  const std::string why = refusal(r);
  EXPECT_EQ(why.rfind("spec.runtime.device: cuda", 0), 0u) << why;
  EXPECT_NE(why.find("sees no GPU"), std::string::npos) << why;
  EXPECT_NE(why.find("cudaErrorNoDevice"), std::string::npos) << why;
  EXPECT_NE(why.find("CUDA_VISIBLE_DEVICES unset"), std::string::npos) << why;
  EXPECT_NE(why.find("spec.runtime.gpusPerRank"), std::string::npos) << why;
}

TEST(GpuPlacement, LocalRankOutsideLocalWorldSizeIsRefused) {
  const std::string why = refusal(request(api::Backend::NCCL, 2, 2, 8));
  EXPECT_NE(why.find("LOCAL_RANK=2"), std::string::npos) << why;
  EXPECT_NE(why.find("LOCAL_WORLD_SIZE=2"), std::string::npos) << why;
}

class LocalRanksEnvironment : public ::testing::Test {
 protected:
  void TearDown() override {
    unsetenv(api::kEnvLocalRank);
    unsetenv(api::kEnvLocalWorldSize);
  }
  std::string refusal() {
    try {
      localRanksFromEnvironment();
    } catch (const PlacementError& e) {
      return e.what();
    }
    return "";
  }
};

TEST_F(LocalRanksEnvironment, UnsetMeansOneRankPerNode) {
  unsetenv(api::kEnvLocalRank);
  unsetenv(api::kEnvLocalWorldSize);
  const LocalRanks l = localRanksFromEnvironment();
  EXPECT_EQ(l.localRank, 0);
  EXPECT_EQ(l.localWorldSize, 1);
}

TEST_F(LocalRanksEnvironment, ReadsBoth) {
  setenv(api::kEnvLocalRank, "3", 1);
  setenv(api::kEnvLocalWorldSize, "4", 1);
  const LocalRanks l = localRanksFromEnvironment();
  EXPECT_EQ(l.localRank, 3);
  EXPECT_EQ(l.localWorldSize, 4);
}

TEST_F(LocalRanksEnvironment, NamesTheVariableThatIsWrong) {
  setenv(api::kEnvLocalRank, "one", 1);
  EXPECT_EQ(refusal(), "LOCAL_RANK=one is not an integer");
  setenv(api::kEnvLocalRank, "4", 1);
  setenv(api::kEnvLocalWorldSize, "4", 1);
  EXPECT_EQ(refusal(), "LOCAL_RANK=4 is not in 0..3 (LOCAL_WORLD_SIZE=4)");
  setenv(api::kEnvLocalRank, "0", 1);
  setenv(api::kEnvLocalWorldSize, "0", 1);
  EXPECT_EQ(refusal(), "LOCAL_WORLD_SIZE=0 must be at least 1");
}

}  // namespace
}  // namespace distbench::worker
