// The DDP and Collectives kinds: their sections, kind-dependent defaults,
// and the validation that keeps sweeps and size ranges runnable.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "distbench/api/image_models.h"
#include "distbench/api/renderer.h"
#include "test_util.h"

namespace distbench::api {
namespace {

using test::document;
using test::parseErrors;
using ::testing::ElementsAre;

const std::string kDDP = document(
    "spec:\n"
    "  topology:\n"
    "    trainers: 4\n"
    "  benchmark:\n"
    "    kind: DDP\n"
    "    bucketCapMB: 1\n"
    "    ddp:\n"
    "      models: [resnet18, smallcnn]\n"
    "      batchSize: 8\n"
    "      imageSize: 64\n"
    "      ranksPerMachine: 2\n");

const std::string kCollectives = document(
    "spec:\n"
    "  topology:\n"
    "    trainers: 3\n"
    "  benchmark:\n"
    "    kind: Collectives\n"
    "    collectives:\n"
    "      ops: [allreduce, reducescatter, sendrecv]\n"
    "      dtypes: [float32, int64]\n"
    "      minBytes: 8\n"
    "      maxBytes: 1048576\n"
    "      stepFactor: 8\n");

TEST(BenchmarkKindsTest, DdpSectionParsesAndHasNoParameterServers) {
  const DistBenchmark b = parseDistBenchmark(kDDP);
  EXPECT_EQ(b.spec.benchmark.kind, BenchmarkKind::DDP);
  EXPECT_EQ(b.spec.topology.parameterServers, 0);  // the DDP default
  EXPECT_EQ(b.spec.benchmark.ddp.models, (std::vector<std::string>{"resnet18", "smallcnn"}));
  EXPECT_EQ(b.spec.benchmark.ddp.batchSize, 8);
  EXPECT_EQ(b.spec.benchmark.ddp.imageSize, 64);
  EXPECT_EQ(b.spec.benchmark.ddp.ranksPerMachine, 2);
  EXPECT_EQ(b.spec.benchmark.ddp.iterations, DDPSpec().iterations);
  EXPECT_DOUBLE_EQ(b.spec.benchmark.ddp.momentum, 0.9);
  EXPECT_DOUBLE_EQ(b.spec.benchmark.ddp.weightDecay, 1e-4);
  EXPECT_EQ(parseDistBenchmark(toYaml(b)), b);
  EXPECT_EQ(parseDistBenchmark(toJson(b)), b);
}

TEST(BenchmarkKindsTest, CollectivesSectionParses) {
  const DistBenchmark b = parseDistBenchmark(kCollectives);
  const CollectivesSpec& c = b.spec.benchmark.collectives;
  EXPECT_EQ(b.spec.topology.parameterServers, 0);
  EXPECT_EQ(c.ops, (std::vector<CollectiveOp>{CollectiveOp::AllReduce, CollectiveOp::ReduceScatter,
                                              CollectiveOp::SendRecv}));
  EXPECT_EQ(c.dtypes, (std::vector<DType>{DType::Float32, DType::Int64}));
  EXPECT_EQ(c.minBytes, 8);
  EXPECT_EQ(c.maxBytes, 1048576);
  EXPECT_EQ(c.stepFactor, 8);
  EXPECT_EQ(parseDistBenchmark(toYaml(b)), b);
  EXPECT_EQ(parseDistBenchmark(toJson(b)), b);
}

TEST(BenchmarkKindsTest, OnlyTheActiveSectionIsWritten) {
  const std::string yaml = toYaml(parseDistBenchmark(kDDP));
  EXPECT_THAT(yaml, ::testing::HasSubstr("ddp:"));
  EXPECT_THAT(yaml, ::testing::Not(::testing::HasSubstr("hybridDDPRPC")));
  EXPECT_THAT(yaml, ::testing::Not(::testing::HasSubstr("collectives")));
}

TEST(BenchmarkKindsTest, SectionOfAnotherKindIsAnError) {
  EXPECT_THAT(parseErrors(document("spec:\n  benchmark:\n    ddp:\n      batchSize: 4\n")),
              ElementsAre("spec.benchmark.ddp: only allowed when spec.benchmark.kind is DDP "
                          "(kind is HybridDDPRPC)"));
  EXPECT_THAT(parseErrors(document("spec:\n  benchmark:\n    kind: DDP\n    hybridDDPRPC: {}\n")),
              ElementsAre("spec.benchmark.hybridDDPRPC: only allowed when spec.benchmark.kind is "
                          "HybridDDPRPC (kind is DDP)"));
}

TEST(BenchmarkKindsTest, ParameterServersMustBeZeroOutsideTheHybridKind) {
  EXPECT_THAT(parseErrors(document("spec:\n  topology:\n    parameterServers: 2\n  benchmark:\n"
                                   "    kind: Collectives\n")),
              ElementsAre("spec.topology.parameterServers: must be 0 for kind Collectives: only "
                          "HybridDDPRPC has parameter servers"));
  // The hybrid kind keeps its default of 8 and still needs at least one.
  EXPECT_EQ(parseDistBenchmark(document("spec: {}\n")).spec.topology.parameterServers, 8);
}

TEST(BenchmarkKindsTest, DdpValidationNamesFields) {
  EXPECT_THAT(parseErrors(document("spec:\n  benchmark:\n    kind: DDP\n    ddp:\n"
                                   "      models: [resnet50, vgg16, resnet50]\n")),
              ElementsAre("spec.benchmark.ddp.models[1]: unknown model \"vgg16\"; known: "
                          "resnet18, resnet50, resnet101, resnext50_32x4d, resnext101_32x8d, "
                          "smallcnn",
                          "spec.benchmark.ddp.models[2]: duplicate entry"));
  EXPECT_THAT(parseErrors(document("spec:\n  benchmark:\n    kind: DDP\n    ddp:\n"
                                   "      models: []\n      batchSize: 0\n      imageSize: 16\n"
                                   "      numClasses: 1\n      iterations: 0\n"
                                   "      learningRate: 0\n      momentum: 1\n"
                                   "      weightDecay: -1\n")),
              ElementsAre("spec.benchmark.ddp.models: must name at least one model",
                          "spec.benchmark.ddp.batchSize: must be ≥ 1",
                          "spec.benchmark.ddp.imageSize: must be ≥ 32",
                          "spec.benchmark.ddp.numClasses: must be ≥ 2",
                          "spec.benchmark.ddp.iterations: must be ≥ 1",
                          "spec.benchmark.ddp.learningRate: must be > 0",
                          "spec.benchmark.ddp.momentum: must be in [0, 1)",
                          "spec.benchmark.ddp.weightDecay: must be ≥ 0"));
  EXPECT_THAT(parseErrors(document("spec:\n  topology:\n    trainers: 6\n  benchmark:\n"
                                   "    kind: DDP\n    ddp:\n      ranksPerMachine: 4\n")),
              ElementsAre("spec.topology.trainers: must be ≤ spec.benchmark.ddp.ranksPerMachine "
                          "(4) or a multiple of it: the sweep's multi-machine rows use whole "
                          "machines"));
  EXPECT_THAT(parseErrors(document("spec:\n  benchmark:\n    kind: DDP\n    ddp:\n"
                                   "      models: [resnet18, 50]\n")),
              ElementsAre("spec.benchmark.ddp.models[1]: must be a string"));
}

TEST(BenchmarkKindsTest, CollectivesValidationNamesFields) {
  EXPECT_THAT(parseErrors(document("spec:\n  topology:\n    trainers: 1\n  benchmark:\n"
                                   "    kind: Collectives\n    collectives:\n"
                                   "      ops: [allreduce, sendrecv, allreduce]\n"
                                   "      dtypes: [bfloat16]\n      minBytes: 0\n"
                                   "      stepFactor: 1\n      iterations: 0\n")),
              ElementsAre("spec.benchmark.collectives.ops[2]: duplicate entry",
                          "spec.benchmark.collectives.ops[1]: sendrecv needs "
                          "spec.topology.trainers ≥ 2",
                          "spec.benchmark.collectives.dtypes[0]: bfloat16 needs "
                          "spec.runtime.backend nccl: Gloo cannot reduce it",
                          "spec.benchmark.collectives.minBytes: must be ≥ 1",
                          "spec.benchmark.collectives.stepFactor: must be ≥ 2",
                          "spec.benchmark.collectives.iterations: must be ≥ 1"));
  EXPECT_THAT(parseErrors(document("spec:\n  benchmark:\n    kind: Collectives\n"
                                   "    collectives:\n      ops: [allreduce, all_reduce]\n"
                                   "      dtypes: float32\n      minBytes: 4096\n"
                                   "      maxBytes: 1024\n")),
              ElementsAre("spec.benchmark.collectives.ops[1]: must be one of allreduce, "
                          "allgather, broadcast, reduce, scatter, gather, reducescatter, "
                          "alltoall, sendrecv",
                          "spec.benchmark.collectives.dtypes: must be a list",
                          "spec.benchmark.collectives.maxBytes: must be ≥ minBytes (4096)"));
}

TEST(BenchmarkKindsTest, RendererLaysOutMasterAndTrainersOnly) {
  const RenderedBenchmark r = render(parseDistBenchmark(kDDP));
  ASSERT_EQ(r.ranks.size(), 5u);
  EXPECT_EQ(r.ranks[0].role, Role::Master);
  for (int i = 1; i < 5; ++i) {
    EXPECT_EQ(r.ranks[i].role, Role::Trainer);
    EXPECT_EQ(r.ranks[i].rank, i);
    EXPECT_EQ(r.ranks[i].name, "small-trainer-" + std::to_string(i - 1));
  }
  EXPECT_EQ(parseDistBenchmark(r.configYaml), parseDistBenchmark(kDDP));
}

}  // namespace
}  // namespace distbench::api
