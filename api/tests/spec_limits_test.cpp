// The derived limits (spec_limits.h): each refuses a spec whose fields are
// all in range alone but whose product or sum is not, naming the field, in
// validate() and in parseDistBenchmark (the operator's path) alike.
#include "distbench/api/spec_limits.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <climits>
#include <functional>

#include "distbench/api/presets.h"
#include "distbench/api/resource_estimate.h"
#include "test_util.h"

namespace distbench::api {
namespace {

using test::minimalBenchmark;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::vector<FieldError> errorsAfter(const std::function<void(DistBenchmark&)>& change) {
  DistBenchmark b = minimalBenchmark();
  change(b);
  return validate(b);
}

std::vector<std::string> fieldsOf(const std::vector<FieldError>& errors) {
  std::vector<std::string> out;
  for (const FieldError& e : errors) out.push_back(e.field);
  return out;
}

DistBenchmark ofKind(BenchmarkKind kind) {
  DistBenchmark b = minimalBenchmark();
  b.spec.benchmark.kind = kind;
  if (kind != BenchmarkKind::HybridDDPRPC) b.spec.topology.parameterServers = 0;
  return b;
}

TEST(SpecLimitsTest, DefaultsAndPresetsAreWithinEveryLimit) {
  EXPECT_THAT(checkSpecLimits(minimalBenchmark().spec), IsEmpty());
  for (BenchmarkKind kind : {BenchmarkKind::DDP, BenchmarkKind::Collectives}) {
    EXPECT_THAT(checkSpecLimits(ofKind(kind).spec), IsEmpty()) << toString(kind);
  }
  for (const std::string& name : presetNames()) {
    EXPECT_THAT(checkSpecLimits(preset(name).spec), IsEmpty()) << name;
  }
}

TEST(SpecLimitsTest, WarmupPlusEpochsMustNotOverflowAnInt) {
  const std::vector<FieldError> errors = errorsAfter([](DistBenchmark& b) {
    b.spec.benchmark.hybridDDPRPC.warmupEpochs = INT_MAX;
    b.spec.benchmark.hybridDDPRPC.epochs = INT_MAX;
  });
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors[0].field, "spec.benchmark.hybridDDPRPC.epochs");
  EXPECT_THAT(errors[0].message,
              HasSubstr("warmupEpochs + epochs is 4294967294, must be ≤ 1000000"));
}

TEST(SpecLimitsTest, TrainingStepsAreBounded) {
  const std::vector<FieldError> errors = errorsAfter([](DistBenchmark& b) {
    b.spec.benchmark.hybridDDPRPC.epochs = 100000;
    b.spec.benchmark.hybridDDPRPC.batchesPerEpoch = 100000;
  });
  EXPECT_THAT(fieldsOf(errors), ElementsAre("spec.benchmark.hybridDDPRPC.batchesPerEpoch"));
}

TEST(SpecLimitsTest, TrainersTimesEpochsOfSamplesAreBounded) {
  const std::vector<FieldError> errors = errorsAfter([](DistBenchmark& b) {
    b.spec.topology.trainers = 4000;
    b.spec.topology.parameterServers = 1;
    b.spec.benchmark.hybridDDPRPC.epochs = 1000000 - 5;
  });
  // The samples, and the master's memory, which they make up.
  ASSERT_THAT(fieldsOf(errors), ElementsAre("spec.benchmark.hybridDDPRPC.epochs",
                                            "spec.benchmark.hybridDDPRPC.epochs"));
  EXPECT_THAT(errors[0].message, HasSubstr("timing samples"));
  EXPECT_THAT(errors[1].message, HasSubstr("memory of one master rank"));
}

TEST(SpecLimitsTest, FiveTimesDdpIterationsMustNotOverflowAnInt) {
  DistBenchmark b = ofKind(BenchmarkKind::DDP);
  b.spec.benchmark.ddp.iterations = INT_MAX / 5 + 1;
  const std::vector<FieldError> errors = validate(b);
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors[0].field, "spec.benchmark.ddp.iterations");
  EXPECT_THAT(errors[0].message, HasSubstr("warmupIterations + iterations"));
}

TEST(SpecLimitsTest, DdpInputBatchIsBounded) {
  DistBenchmark b = ofKind(BenchmarkKind::DDP);
  b.spec.benchmark.ddp.batchSize = 4096;
  b.spec.benchmark.ddp.imageSize = 1024;
  const std::vector<FieldError> errors = validate(b);
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors[0].field, "spec.benchmark.ddp.batchSize");
  EXPECT_THAT(errors[0].message, HasSubstr("is 48 GiB, must be ≤ 1 GiB"));
}

TEST(SpecLimitsTest, CollectivesIterationsAreBounded) {
  DistBenchmark b = ofKind(BenchmarkKind::Collectives);
  b.spec.benchmark.collectives.iterations = INT_MAX;
  const std::vector<FieldError> errors = validate(b);
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors[0].field, "spec.benchmark.collectives.iterations");
}

// Each factor is within its own bound; the message they make is 256 GiB, and
// every parameter server would zero-fill three of them per trainer.
TEST(SpecLimitsTest, ParameterServerMessageIsBounded) {
  const std::vector<FieldError> errors = errorsAfter([](DistBenchmark& b) {
    b.spec.benchmark.hybridDDPRPC.maxBagIndices = kMaxBagIndices;
    b.spec.benchmark.hybridDDPRPC.embeddingDim = kMaxEmbeddingDim;
    b.spec.benchmark.hybridDDPRPC.numEmbeddings = 1;
  });
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors[0].field, "spec.benchmark.hybridDDPRPC.maxBagIndices");
  EXPECT_THAT(errors[0].message, HasSubstr("is 256.0 GiB, must be ≤ 256 MiB"));
}

TEST(SpecLimitsTest, DenseWidthsAndParametersAreBounded) {
  EXPECT_THAT(fieldsOf(errorsAfter([](DistBenchmark& b) {
                b.spec.benchmark.hybridDDPRPC.denseLayers = {"4611686018427387904", "8"};
              })),
              ::testing::Contains("spec.benchmark.hybridDDPRPC.denseLayers[0]"));
  // Widths allowed alone, a stack of 2^20 × 2^20 parameters together.
  EXPECT_THAT(fieldsOf(errorsAfter([](DistBenchmark& b) {
                b.spec.benchmark.hybridDDPRPC.denseLayers = {"1048576", "1048576", "8"};
              })),
              ::testing::Contains("spec.benchmark.hybridDDPRPC.denseLayers"));
}

TEST(SpecLimitsTest, PerRankMemoryIsBoundedNamingWhatDominates) {
  // A 128 MiB message is allowed; four per trainer on every parameter
  // server, for 200 trainers, is 100 GiB.
  std::vector<FieldError> errors = errorsAfter([](DistBenchmark& b) {
    b.spec.topology.trainers = 200;
    b.spec.benchmark.hybridDDPRPC.maxBagIndices = 1 << 15;
    b.spec.benchmark.hybridDDPRPC.embeddingDim = 1024;
  });
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors[0].field, "spec.benchmark.hybridDDPRPC.maxBagIndices");
  EXPECT_THAT(errors[0].message, HasSubstr("memory of one parameter-server rank"));
  EXPECT_THAT(errors[0].message, HasSubstr("must be ≤ 64 GiB"));
}

// The operator's path: parseDistBenchmark of what the API server stored.
TEST(SpecLimitsTest, ParsingRefusesWithTheFieldNamed) {
  const std::vector<std::string> errors = test::parseErrors(
      test::document("spec:\n"
                     "  benchmark:\n"
                     "    hybridDDPRPC:\n"
                     "      warmupEpochs: 2147483647\n"
                     "      epochs: 2147483647\n"));
  ASSERT_FALSE(errors.empty());
  EXPECT_THAT(errors[0], HasSubstr("spec.benchmark.hybridDDPRPC.epochs: warmupEpochs + epochs"));
  EXPECT_THAT(errors[0], HasSubstr(kDerivedLimitNote));
}

TEST(ResourceEstimateTest, FollowsWhatTheWorkerAllocates) {
  DistBenchmarkSpec s = minimalBenchmark().spec;
  const int64_t message = psMessageBytes(s.benchmark.hybridDDPRPC);
  // A lookup reply of maxBagIndices × embeddingDim floats and the header.
  EXPECT_EQ(message, 64 + 50 * 64 * 4);
  // Each more trainer costs every parameter server two posted requests, a
  // reply and a gradient's worth.
  const int64_t ps = rankMemoryBytes(s, Role::ParameterServer);
  s.topology.trainers += 1;
  EXPECT_EQ(rankMemoryBytes(s, Role::ParameterServer) - ps, 4 * message);
  // The dense stack: (P × dim + 1) × 256 + 257 × 128 + ... parameters.
  s.benchmark.hybridDDPRPC.denseLayers = {"10", "ReLU", "2"};
  EXPECT_EQ(denseParameters(s), (2 * 64 + 1) * 10 + 11 * 2);
}

// A DDP trainer holds four copies of its largest model, classifier included.
TEST(ResourceEstimateTest, DdpMemoryFollowsTheLargestModelAndItsClasses) {
  DistBenchmarkSpec s = ofKind(BenchmarkKind::DDP).spec;
  s.benchmark.ddp.models = {"smallcnn"};
  const int64_t small = rankMemoryBytes(s, Role::Trainer);
  s.benchmark.ddp.models = {"smallcnn", "resnet50"};
  const int64_t resnet50 = rankMemoryBytes(s, Role::Trainer);
  EXPECT_GT(resnet50 - small, int64_t{23'000'000} * 16);
  s.benchmark.ddp.numClasses += 1;  // one more row of 2048 weights and a bias
  EXPECT_EQ(rankMemoryBytes(s, Role::Trainer) - resnet50, 2049 * 16);
  EXPECT_EQ(rankMemoryBytes(s, Role::Master), kRankBaseBytes + 8 * timingSamples(s));
}

TEST(ResourceEstimateTest, DefaultMemoryIsTheEstimateInMiBAndTwiceItAsLimit) {
  const DistBenchmarkSpec s = minimalBenchmark().spec;
  for (Role role : {Role::Master, Role::ParameterServer, Role::Trainer}) {
    const MemoryResources m = defaultMemory(s, role);
    const int64_t mib = (rankMemoryBytes(s, role) + (1 << 20) - 1) >> 20;
    EXPECT_EQ(m.request, std::to_string(mib) + "Mi") << toString(role);
    EXPECT_EQ(m.limit, std::to_string(2 * mib) + "Mi") << toString(role);
    EXPECT_GE(rankMemoryBytes(s, role), kRankBaseBytes);
  }
}

TEST(ResourceEstimateTest, SaturatesInsteadOfOverflowing) {
  EXPECT_EQ(saturatingMul(INT64_MAX, 2), INT64_MAX);
  EXPECT_EQ(saturatingAdd(INT64_MAX, 1), INT64_MAX);
  EXPECT_EQ(saturatingMul(-5, 3), 0);
  HybridDDPRPCSpec h;
  h.maxBagIndices = INT_MAX;
  h.embeddingDim = INT64_MAX;
  EXPECT_EQ(psMessageBytes(h), INT64_MAX);
}

}  // namespace
}  // namespace distbench::api
