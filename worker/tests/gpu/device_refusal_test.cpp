// A spec.runtime.device cuda run where it cannot run (this machine has no
// GPU, or this build no CUDA LibTorch): every rank ends within seconds,
// the trainers saying why, the others naming the trainer, rather than the
// master waiting out the rendezvous timeout. Runs in CI, which never has a
// GPU; skipped where the GPU run would succeed (gpu_runs_test.cpp covers
// that).
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <string>

#include "distbench/api/presets.h"
#include "distbench/process/binary_runner.h"
#include "distbench/process/temp_dir.h"
#include "gpu/gpu_test_support.h"
#include "support/local_cluster.h"

namespace distbench::worker {
namespace {

TEST(DeviceRefusal, CudaSpecWithoutAGpuEndsEveryRankNamingTheField) {
  const std::string why = testing::whyNoGpu(1);
  if (why.empty()) GTEST_SKIP() << "this machine can run on its GPU";
  process::TempDir dir("distbench-no-gpu-");
  const std::string spec = dir.path() + "/cuda.yaml";
  std::ofstream(spec) << R"(apiVersion: distbench.io/v1alpha1
kind: DistBenchmark
metadata: {name: no-gpu}
spec:
  topology: {trainers: 2, parameterServers: 1}
  benchmark:
    hybridDDPRPC: {epochs: 2, warmupEpochs: 1}
  runtime: {device: cuda, backend: gloo, rendezvousTimeoutSeconds: 120}
)";
  const auto start = std::chrono::steady_clock::now();
  const process::BinaryResult r = process::runCaptured(
      std::string(DISTBENCH_BINARY) + " run " + spec, dir.path() + "/out", dir.path() + "/err");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(r.exitCode, 0);
  EXPECT_LT(seconds, 60.0) << "a rank waited instead of ending\n" << r.err;
  // The trainer's own line: the field, and this build's or node's reason.
  EXPECT_NE(r.err.find("cannot run: "), std::string::npos) << r.err;
  if (!torchCudaUnavailable().empty()) {
    EXPECT_NE(r.err.find("was built without CUDA"), std::string::npos) << r.err;
  }
  if (builtWithCudaRuntime()) {
    EXPECT_NE(r.err.find("spec.runtime.device: cuda, but trainer"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("sees no GPU on this node"), std::string::npos) << r.err;
  }
  // The master and the parameter server end on the trainer's verdict.
  EXPECT_NE(r.err.find("[master]"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("rendezvous timed out"), std::string::npos) << r.err;
}

// A refusal is permanent: every rank exits 2 with it, the trainer that
// refused and the ranks that end on its verdict alike, so that whichever
// pod the operator reads first it fails the run (RankRefused) instead of
// restarting a gang that would be refused again.
TEST(DeviceRefusal, EveryRankExitsTwoWithTheRefusal) {
  const std::string why = testing::whyNoGpu(1);
  if (why.empty()) GTEST_SKIP() << "this machine can run on its GPU";
  api::DistBenchmark b = api::preset("tutorial");
  b.metadata.name = "no-gpu";
  b.spec.runtime.device = api::Device::CUDA;
  b.spec.runtime.backend = api::Backend::Gloo;
  b.spec.runtime.rendezvousTimeoutSeconds = 120;
  testing::LocalCluster cluster(b);
  cluster.waitAll(std::chrono::seconds(60));
  for (int r = 0; r < cluster.worldSize(); ++r) {
    ASSERT_TRUE(cluster.exitStatus(r).has_value()) << "rank " << r << "\n" << cluster.allOutput();
    EXPECT_EQ(cluster.exitStatus(r)->code, 2)
        << "rank " << r << ": " << cluster.exitStatus(r)->describe() << "\n"
        << cluster.output(r);
    EXPECT_NE(cluster.output(r).find("cannot run: "), std::string::npos) << cluster.output(r);
  }
}

}  // namespace
}  // namespace distbench::worker
