// The user's path end to end: `distbench run FILE` with the real worker, as
// the README's first command does with the default preset.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "distbench/process/binary_runner.h"
#include "distbench/process/temp_dir.h"

namespace distbench::worker {
namespace {

using process::BinaryResult;
using process::slurp;

BinaryResult distbench(const std::string& args, const std::string& dir) {
  return process::runCaptured(std::string(DISTBENCH_BINARY) + " " + args, dir + "/stdout",
                                   dir + "/stderr");
}

TEST(RunCommand, RunsAResourceFileAndWritesTheReport) {
  process::TempDir dir("distbench-run-test-");
  const std::string spec = dir.path() + "/small.yaml";
  std::ofstream(spec) << R"(apiVersion: distbench.io/v1alpha1
kind: DistBenchmark
metadata: {name: small}
spec:
  topology: {trainers: 3, parameterServers: 2}
  benchmark:
    hybridDDPRPC: {epochs: 3, warmupEpochs: 1}
)";
  const std::string report = dir.path() + "/report.json";
  BinaryResult r = distbench("run " + spec + " --report " + report, dir.path());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  // The master's table is the only thing on stdout, unprefixed.
  EXPECT_NE(r.out.find("Trainer2:  p50:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("     All:  p50:"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("[trainer"), std::string::npos) << r.out;
  // Rank logs on stderr, prefixed with the rank.
  EXPECT_NE(r.err.find("[trainer2]"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[ps1]"), std::string::npos) << r.err;
  const std::string json = slurp(report);
  EXPECT_NE(json.find("\"schemaVersion\":2"), std::string::npos) << json;
  EXPECT_NE(json.find("\"row\":\"Trainer2\""), std::string::npos) << json;
}

// The smallest run of the two kinds without parameter servers: a master and
// one trainer (WORLD_SIZE 2), as one GPU runs them.
TEST(RunCommand, OneTrainerRunsEveryKindWithoutParameterServers) {
  process::TempDir dir("distbench-run-test-");
  const std::string ddp = dir.path() + "/ddp.yaml";
  std::ofstream(ddp) << R"(apiVersion: distbench.io/v1alpha1
kind: DistBenchmark
metadata: {name: one-ddp}
spec:
  topology: {trainers: 1, parameterServers: 0}
  benchmark:
    kind: DDP
    ddp: {models: [smallcnn], batchSize: 4, imageSize: 32, warmupIterations: 1, iterations: 2}
)";
  BinaryResult r = distbench("run " + ddp, dir.path());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("1M/1R"), std::string::npos) << r.out;
  const std::string collectives = dir.path() + "/collectives.yaml";
  std::ofstream(collectives) << R"(apiVersion: distbench.io/v1alpha1
kind: DistBenchmark
metadata: {name: one-collectives}
spec:
  topology: {trainers: 1, parameterServers: 0}
  benchmark:
    kind: Collectives
    collectives: {ops: [allreduce, reducescatter], maxBytes: 4096, iterations: 2}
)";
  r = distbench("run " + collectives, dir.path());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("allreduce float32"), std::string::npos) << r.out;
}

TEST(RunCommand, InvalidResourceStartsNothingAndNamesTheField) {
  process::TempDir dir("distbench-run-test-");
  const std::string spec = dir.path() + "/bad.yaml";
  std::ofstream(spec) << R"(apiVersion: distbench.io/v1alpha1
kind: DistBenchmark
metadata: {name: bad}
spec:
  topology: {trainers: 0, parameterServers: 2}
)";
  BinaryResult r = distbench("run " + spec, dir.path());
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("spec.topology.trainers: must be ≥ 1"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("started"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace distbench::worker
