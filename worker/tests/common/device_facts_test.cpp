#include "distbench/worker/common/device_facts.h"

#include <gtest/gtest.h>

#include <chrono>
#include <torch/csrc/distributed/c10d/HashStore.hpp>

namespace distbench::worker {
namespace {

DeviceFacts h100(const std::string& host, const std::string& bus) {
  DeviceFacts f;
  f.host = host;
  f.gpu = "NVIDIA H100 80GB HBM3";
  f.pciBusId = bus;
  f.memoryBytes = 85'000'000'000;
  f.runtimeVersion = 13000;
  f.driverVersion = 13000;
  f.ncclVersion = 22809;
  f.cudnnVersion = 91002;
  return f;
}

TEST(DeviceFacts, RoundTripThroughText) {
  const DeviceFacts f = h100("node-a", "0000:1b:00.0");
  const DeviceFacts back = decodeDeviceFacts(encodeDeviceFacts(f));
  EXPECT_EQ(back.host, f.host);
  EXPECT_EQ(back.gpu, f.gpu);
  EXPECT_EQ(back.pciBusId, f.pciBusId);
  EXPECT_EQ(back.memoryBytes, f.memoryBytes);
  EXPECT_EQ(back.runtimeVersion, f.runtimeVersion);
  EXPECT_EQ(back.driverVersion, f.driverVersion);
  EXPECT_EQ(back.ncclVersion, f.ncclVersion);
  EXPECT_EQ(back.cudnnVersion, f.cudnnVersion);
}

TEST(DeviceFacts, DamagedTextNamesTheField) {
  std::string text = encodeDeviceFacts(h100("a", "b"));
  text.replace(text.find("ncclVersion=22809"), 17, "ncclVersion=2.28");
  try {
    decodeDeviceFacts(text);
    FAIL() << "accepted " << text;
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("ncclVersion"), std::string::npos) << e.what();
  }
}

// Four trainers sharing one GPU (Gloo on CUDA tensors) and one on another
// node: two GPUs in the report, versions as the seed's diff prints them.
TEST(DeviceFacts, ReportGetsVersionsAndOneEntryPerGpu) {
  std::vector<DeviceFacts> facts(4, h100("node-a", "0000:1b:00.0"));
  facts.push_back(h100("node-b", "0000:1b:00.0"));
  report::Report r;
  addDeviceFacts(r, facts);
  EXPECT_EQ(r.versions.at("cuda"), "13.0");
  EXPECT_EQ(r.versions.at("cudaDriver"), "13.0");
  EXPECT_EQ(r.versions.at("nccl"), "2.28.9");
  EXPECT_EQ(r.versions.at("cudnn"), "9.10.2");
  EXPECT_EQ(r.host.gpus, std::vector<std::string>(2, "NVIDIA H100 80GB HBM3"));

  const std::string banner = formatDeviceFacts(facts);
  EXPECT_NE(banner.find("* CUDA version: 13.0"), std::string::npos) << banner;
  EXPECT_NE(banner.find("* NCCL version: 2.28.9"), std::string::npos) << banner;
  EXPECT_NE(banner.find("* GPUs: 2 x NVIDIA H100 80GB HBM3 (5 trainers)"), std::string::npos)
      << banner;
  EXPECT_EQ(banner.find("differ"), std::string::npos) << banner;
}

TEST(DeviceFacts, CpuRunsAddNothing) {
  report::Report r;
  addDeviceFacts(r, {});
  EXPECT_TRUE(r.versions.empty());
  EXPECT_TRUE(r.host.gpus.empty());
  EXPECT_EQ(formatDeviceFacts({}), "");
}

TEST(DeviceFacts, MasterReadsEveryTrainerAndNamesOneThatSaidNothing) {
  auto store = c10::make_intrusive<c10d::HashStore>();
  publishDeviceFacts(*store, 0, h100("node-a", "bus0"));
  publishDeviceFacts(*store, 1, h100("node-a", "bus1"));
  const auto facts = readDeviceFacts(*store, 2, std::chrono::seconds(5));
  ASSERT_EQ(facts.size(), 2u);
  EXPECT_EQ(facts[1].pciBusId, "bus1");
  try {
    readDeviceFacts(*store, 3, std::chrono::milliseconds(200));
    FAIL() << "trainer2 published nothing";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("trainer2"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace distbench::worker
