// Whole runs on a GPU, as a user starts them (`distbench run` with the real
// worker; ctest label `gpu`): each kind on the device, the report carrying
// the versions and GPUs, the DDP rows labelled in GPUs, and a node with
// fewer GPUs than NCCL ranks refused at once. Skipped without a GPU
// (gpu_test_support.h).
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <string>

#include "distbench/process/binary_runner.h"
#include "distbench/process/temp_dir.h"
#include "gpu/gpu_test_support.h"

namespace distbench::worker {
namespace {

using process::BinaryResult;
using process::slurp;

struct RunResult {
  BinaryResult result;
  std::string report;
  double seconds = 0;
};

RunResult distbenchRun(const std::string& name, const std::string& spec) {
  process::TempDir dir("distbench-gpu-run-");
  const std::string file = dir.path() + "/" + name + ".yaml";
  std::ofstream(file) << "apiVersion: distbench.io/v1alpha1\nkind: DistBenchmark\n"
                      << "metadata: {name: " << name << "}\n"
                      << spec;
  const std::string report = dir.path() + "/report.json";
  const auto start = std::chrono::steady_clock::now();
  RunResult run;
  run.result = process::runCaptured(std::string(DISTBENCH_BINARY) + " run " + file +
                                        " --report " + report,
                                    dir.path() + "/stdout", dir.path() + "/stderr");
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.report = slurp(report);
  return run;
}

void expectGpuReport(const RunResult& run) {
  ASSERT_EQ(run.result.exitCode, 0) << run.result.err;
  EXPECT_NE(run.report.find("\"device\":\"cuda\""), std::string::npos) << run.report;
  EXPECT_NE(run.report.find("\"cuda\":\""), std::string::npos) << run.report;
  EXPECT_NE(run.report.find("\"nccl\":\""), std::string::npos) << run.report;
  EXPECT_EQ(run.report.find("\"gpus\":[]"), std::string::npos) << run.report;
  EXPECT_NE(run.result.out.find("* CUDA version: "), std::string::npos) << run.result.out;
}

TEST(GpuRuns, DdpOneGpuRowsOverNccl) {
  DISTBENCH_SKIP_WITHOUT_GPUS(1);
  const RunResult run = distbenchRun("gpu-ddp", R"(spec:
  topology: {trainers: 1, parameterServers: 0}
  benchmark:
    kind: DDP
    ddp: {models: [resnet18], batchSize: 8, imageSize: 64, warmupIterations: 2, iterations: 5}
  runtime: {device: cuda, backend: nccl}
)");
  expectGpuReport(run);
  EXPECT_NE(run.result.out.find("1M/1G"), std::string::npos) << run.result.out;
  EXPECT_NE(run.result.out.find("no ddp"), std::string::npos) << run.result.out;
}

TEST(GpuRuns, CollectivesNcclAndGlooOnCudaTensors) {
  DISTBENCH_SKIP_WITHOUT_GPUS(1);
  const std::string sweep = R"(
    collectives: {dtypes: [float32, float16], minBytes: 1024, maxBytes: 1048576, stepFactor: 32,
                  warmupIterations: 1, iterations: 3)";
  // One rank: every op but sendrecv, which needs a peer.
  const RunResult nccl = distbenchRun("gpu-coll-nccl", R"(spec:
  topology: {trainers: 1, parameterServers: 0}
  benchmark:
    kind: Collectives)" + sweep + R"(,
                  ops: [allreduce, allgather, broadcast, reduce, scatter, gather, reducescatter,
                        alltoall]}
  runtime: {device: cuda, backend: nccl}
)");
  expectGpuReport(nccl);
  EXPECT_NE(nccl.report.find("nccl reduce_scatter"), std::string::npos) << nccl.report;
  const RunResult gloo = distbenchRun("gpu-coll-gloo", R"(spec:
  topology: {trainers: 2, parameterServers: 0}
  benchmark:
    kind: Collectives)" + sweep + R"(}
  runtime: {device: cuda, backend: gloo}
)");
  expectGpuReport(gloo);
  EXPECT_NE(gloo.report.find("staged through host memory"), std::string::npos) << gloo.report;
}

TEST(GpuRuns, HybridTrainersOnTheGpu) {
  DISTBENCH_SKIP_WITHOUT_GPUS(1);
  const RunResult run = distbenchRun("gpu-hybrid", R"(spec:
  topology: {trainers: 2, parameterServers: 1}
  benchmark:
    hybridDDPRPC: {epochs: 3, warmupEpochs: 1}
  runtime: {device: cuda, backend: gloo}
)");
  expectGpuReport(run);
  EXPECT_NE(run.result.out.find("     All:  p50:"), std::string::npos) << run.result.out;
}

// NCCL refuses two ranks on one GPU only once a collective hangs; the
// worker refuses up front and ends every rank, naming the numbers.
TEST(GpuRuns, MoreNcclRanksThanGpusEndsTheRunAtOnce) {
  DISTBENCH_SKIP_WITHOUT_GPUS(1);
  const int trainers = static_cast<int>(probeGpuRuntime().devices.size()) + 1;
  const RunResult run = distbenchRun("gpu-too-many", "spec:\n  topology: {trainers: " +
                                                   std::to_string(trainers) + R"(, parameterServers: 0}
  benchmark:
    kind: Collectives
    collectives: {maxBytes: 4096}
  runtime: {device: cuda, backend: nccl, rendezvousTimeoutSeconds: 120}
)");
  EXPECT_NE(run.result.exitCode, 0);
  EXPECT_NE(run.result.err.find("LOCAL_WORLD_SIZE=" + std::to_string(trainers)),
            std::string::npos)
      << run.result.err;
  EXPECT_NE(run.result.err.find("NCCL refuses two ranks on one GPU"), std::string::npos)
      << run.result.err;
  EXPECT_LT(run.seconds, 60.0) << "the run waited instead of ending";
}

}  // namespace
}  // namespace distbench::worker
