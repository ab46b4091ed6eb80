#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "distbench/api/presets.h"
#include "test_util.h"

namespace distbench::api {
namespace {

using test::minimalBenchmark;
using test::validationErrors;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// The errors of minimalBenchmark() after `change`.
std::vector<std::string> errorsAfter(const std::function<void(DistBenchmark&)>& change) {
  DistBenchmark b = minimalBenchmark();
  change(b);
  return validationErrors(b);
}

const std::string kDnsMessage =
    "metadata.name: must be a DNS-1123 label: at most 63 lowercase letters, digits and '-', "
    "starting and ending with a letter or digit";

TEST(ValidationTest, DefaultsAndPresetsAreValid) {
  EXPECT_THAT(validationErrors(minimalBenchmark()), IsEmpty());
  for (const std::string& name : presetNames()) {
    SCOPED_TRACE(name);
    EXPECT_THAT(validationErrors(preset(name)), IsEmpty());
  }
}

TEST(ValidationTest, ApiVersionAndKind) {
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) { b.apiVersion = "v1"; }),
              ElementsAre("apiVersion: must be distbench.io/v1alpha1"));
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) { b.kind = "Pod"; }),
              ElementsAre("kind: must be DistBenchmark"));
}

TEST(ValidationTest, Topology) {
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) { b.spec.topology.trainers = 0; }),
              ElementsAre("spec.topology.trainers: must be ≥ 1"));
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) { b.spec.topology.parameterServers = -1; }),
              ElementsAre("spec.topology.parameterServers: must be ≥ 1"));
}

TEST(ValidationTest, AtMost4096RanksComputedWithoutOverflow) {
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) {
                b.spec.topology.parameterServers = 1;
                b.spec.topology.trainers = 4094;
                b.metadata.name = "x";
              }),
              IsEmpty());
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) {
                b.spec.topology.parameterServers = 1;
                b.spec.topology.trainers = 4095;
                b.metadata.name = "x";
              }),
              ElementsAre("spec.topology: 1 master + 1 parameter servers + 4095 trainers is 4097 "
                          "ranks; at most 4096 are supported"));
  // 1 + 2^31-1 + 2^31-1 overflows an int; the check must still see it.
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) {
                b.spec.topology.parameterServers = 2147483647;
                b.spec.topology.trainers = 2147483647;
                b.metadata.name = "x";
              }),
              ElementsAre("spec.topology.trainers: must be ≤ 4095",
                          "spec.topology.parameterServers: must be ≤ 4095",
                          "spec.topology: 1 master + 2147483647 parameter servers + 2147483647 "
                          "trainers is 4294967295 ranks; at most 4096 are supported"));
  EXPECT_EQ(worldSize(DistBenchmarkSpec{{2147483647, 2147483647}, {}, {}, {}, {}, {}, {}}), 4294967295LL);
}

TEST(ValidationTest, ParameterServerShardsAndBagsAreBounded) {
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) {
                b.spec.benchmark.hybridDDPRPC.numEmbeddings = int64_t{1} << 31;
                b.spec.benchmark.hybridDDPRPC.embeddingDim = 4096;
              }),
              ElementsAre("spec.benchmark.hybridDDPRPC.numEmbeddings: numEmbeddings × "
                          "embeddingDim × 4 bytes must be ≤ 16 GiB per parameter-server shard"));
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) {
                b.spec.benchmark.hybridDDPRPC.embeddingDim = int64_t{1} << 40;
              }),
              ElementsAre("spec.benchmark.hybridDDPRPC.embeddingDim: must be ≤ 65536"));
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) {
                b.spec.benchmark.hybridDDPRPC.maxBagIndices = 2000000;
              }),
              ElementsAre("spec.benchmark.hybridDDPRPC.maxBagIndices: must be ≤ 1048576"));
}

TEST(ValidationTest, SecurityOverridesAreCheckedAndNamed) {
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) {
                b.spec.podTemplates.trainer.podSecurityContext.runAsUser = 0;
              }),
              ElementsAre("spec.podTemplates.trainer.podSecurityContext.runAsUser: 0 (root) needs "
                          "runAsNonRoot: false in the same podSecurityContext"));
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) {
                b.spec.podTemplates.trainer.podSecurityContext.runAsUser = 0;
                b.spec.podTemplates.trainer.podSecurityContext.runAsNonRoot = false;
              }),
              IsEmpty());
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) {
                b.spec.podTemplates.master.podSecurityContext.seccompProfile =
                    SeccompProfile{"Localhost", ""};
                b.spec.podTemplates.master.securityContext.capabilitiesAdd =
                    std::vector<std::string>{"ipc_lock"};
              }),
              ElementsAre("spec.podTemplates.master.podSecurityContext.seccompProfile."
                          "localhostProfile: required when type is Localhost",
                          "spec.podTemplates.master.securityContext.capabilities.add[0]: must be "
                          "a capability name such as ALL, NET_ADMIN or IPC_LOCK"));
}

TEST(ValidationTest, NameIsRequired) {
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) { b.metadata.name = ""; }),
              ElementsAre("metadata.name: required"));
}

TEST(ValidationTest, NameIsADnsLabel) {
  for (const char* bad : {"Small", "-small", "small-", "sm_all", "sm.all", "smäll"}) {
    SCOPED_TRACE(bad);
    EXPECT_THAT(errorsAfter([&](DistBenchmark& b) { b.metadata.name = bad; }),
                ElementsAre(kDnsMessage));
  }
  for (const char* good : {"a", "small-2", "a-b-c"}) {
    SCOPED_TRACE(good);
    EXPECT_THAT(errorsAfter([&](DistBenchmark& b) { b.metadata.name = good; }), IsEmpty());
  }
}

TEST(ValidationTest, NameStartsWithALetterForTheServiceName) {
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) { b.metadata.name = "1bench"; }),
              ElementsAre("metadata.name: must start with a letter: it prefixes the master "
                          "Service's name, which Kubernetes requires to be a DNS-1035 label"));
}

TEST(ValidationTest, NameLeavesRoomForDerivedNames) {
  // With 3 trainers the longest derived name is "<name>-trainer-2": 10 more characters.
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) { b.metadata.name = std::string(53, 'a'); }),
              IsEmpty());
  const std::string name(54, 'a');
  EXPECT_THAT(errorsAfter([&](DistBenchmark& b) { b.metadata.name = name; }),
              ElementsAre("metadata.name: too long: the pod name \"" + name +
                          "-trainer-2\" would be 64 characters, and pod and Service names "
                          "must be ≤ 63"));
  // More trainers, more digits.
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) {
                b.metadata.name = std::string(53, 'a');
                b.spec.topology.trainers = 11;
              }),
              ElementsAre(::testing::HasSubstr("-trainer-10\" would be 64 characters")));
  // A world too large to run is refused as such, without deriving its names.
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) {
                b.metadata.name = std::string(52, 'a');
                b.spec.topology.parameterServers = 100000000;
              }),
              ElementsAre("spec.topology.parameterServers: must be ≤ 4095",
                          ::testing::HasSubstr("ranks; at most 4096 are supported")));
}

TEST(ValidationTest, Namespace) {
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) { b.metadata.namespace_ = "Team_A"; }),
              ElementsAre("metadata.namespace: must be a DNS-1123 label: at most 63 lowercase "
                          "letters, digits and '-', starting and ending with a letter or digit"));
}

TEST(ValidationTest, EmbeddingShape) {
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) {
                b.spec.benchmark.hybridDDPRPC.numEmbeddings = 0;
                b.spec.benchmark.hybridDDPRPC.embeddingDim = 0;
              }),
              ElementsAre("spec.benchmark.hybridDDPRPC.numEmbeddings: must be ≥ 1",
                          "spec.benchmark.hybridDDPRPC.embeddingDim: must be ≥ 1"));
}

TEST(ValidationTest, DenseLayers) {
  using Tokens = std::vector<std::string>;
  auto errorsFor = [](const Tokens& tokens) {
    return errorsAfter(
        [&](DistBenchmark& b) { b.spec.benchmark.hybridDDPRPC.denseLayers = tokens; });
  };
  EXPECT_THAT(errorsFor({}), ElementsAre("spec.benchmark.hybridDDPRPC.denseLayers: must not be "
                                         "empty: the last entry is the class count"));
  EXPECT_THAT(errorsFor({"16", "ReLU", "relu", "0", "8"}),
              ElementsAre("spec.benchmark.hybridDDPRPC.denseLayers[2]: must be a positive "
                          "integer or ReLU, got \"relu\"",
                          "spec.benchmark.hybridDDPRPC.denseLayers[3]: must be a positive "
                          "integer or ReLU, got \"0\""));
  EXPECT_THAT(
      errorsFor({"-4", "+4", "4x", "8"}),
      ElementsAre(::testing::EndsWith("[0]: must be a positive integer or ReLU, got \"-4\""),
                  ::testing::EndsWith("[1]: must be a positive integer or ReLU, got \"+4\""),
                  ::testing::EndsWith("[2]: must be a positive integer or ReLU, got \"4x\"")));
  const std::string lastMessage = "the last entry is the class count: must be an integer ≥ 2";
  EXPECT_THAT(errorsFor({"16", "ReLU"}),
              ElementsAre("spec.benchmark.hybridDDPRPC.denseLayers[1]: " + lastMessage));
  EXPECT_THAT(errorsFor({"1"}),
              ElementsAre("spec.benchmark.hybridDDPRPC.denseLayers[0]: " + lastMessage));
  EXPECT_THAT(errorsFor({"ReLU", "2"}), IsEmpty());
}

TEST(ValidationTest, TrainingLoop) {
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) {
                auto& h = b.spec.benchmark.hybridDDPRPC;
                h.epochs = 0;
                h.warmupEpochs = -1;
                h.batchesPerEpoch = 0;
                h.maxOffsetStep = 0;
              }),
              ElementsAre("spec.benchmark.hybridDDPRPC.epochs: must be ≥ 1",
                          "spec.benchmark.hybridDDPRPC.warmupEpochs: must be ≥ 0",
                          "spec.benchmark.hybridDDPRPC.batchesPerEpoch: must be ≥ 1",
                          "spec.benchmark.hybridDDPRPC.maxOffsetStep: must be ≥ 1"));
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) { b.spec.benchmark.hybridDDPRPC.warmupEpochs = 0; }),
              IsEmpty());
}

TEST(ValidationTest, BagSizes) {
  EXPECT_THAT(
      errorsAfter([](DistBenchmark& b) { b.spec.benchmark.hybridDDPRPC.minBagIndices = 0; }),
      ElementsAre("spec.benchmark.hybridDDPRPC.minBagIndices: must be ≥ 1"));
  EXPECT_THAT(
      errorsAfter([](DistBenchmark& b) {
        b.spec.benchmark.hybridDDPRPC.minBagIndices = 30;
        b.spec.benchmark.hybridDDPRPC.maxBagIndices = 29;
      }),
      ElementsAre("spec.benchmark.hybridDDPRPC.maxBagIndices: must be ≥ minBagIndices (30)"));
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) {
                b.spec.benchmark.hybridDDPRPC.minBagIndices = 30;
                b.spec.benchmark.hybridDDPRPC.maxBagIndices = 30;
              }),
              IsEmpty());
}

TEST(ValidationTest, PositiveReals) {
  for (double bad : {0.0, -0.1, std::nan(""), HUGE_VAL}) {
    SCOPED_TRACE(bad);
    EXPECT_THAT(errorsAfter([&](DistBenchmark& b) {
                  b.spec.benchmark.hybridDDPRPC.learningRate = bad;
                  b.spec.benchmark.bucketCapMB = bad;
                }),
                ElementsAre("spec.benchmark.bucketCapMB: must be > 0",
                            "spec.benchmark.hybridDDPRPC.learningRate: must be > 0"));
  }
}

TEST(ValidationTest, Ports) {
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) {
                b.spec.runtime.masterPort = 0;
                b.spec.runtime.metricsPort = 65536;
              }),
              ElementsAre("spec.runtime.masterPort: must be in 1..65535",
                          "spec.runtime.metricsPort: must be in 1..65535"));
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) { b.spec.runtime.metricsPort = 29500; }),
              ElementsAre("spec.runtime.metricsPort: must differ from spec.runtime.masterPort"));
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) {
                b.spec.runtime.masterPort = 1;
                b.spec.runtime.metricsPort = 65535;
              }),
              IsEmpty());
}

TEST(ValidationTest, Timeouts) {
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) {
                b.spec.runtime.rendezvousTimeoutSeconds = 0;
                b.spec.runtime.peerTimeoutSeconds = 0;
                b.spec.runtime.metricsLingerSeconds = -1;
              }),
              ElementsAre("spec.runtime.rendezvousTimeoutSeconds: must be ≥ 1",
                          "spec.runtime.peerTimeoutSeconds: must be ≥ 1",
                          "spec.runtime.metricsLingerSeconds: must be ≥ 0"));
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) { b.spec.runtime.intraOpThreads = -1; }),
              ElementsAre("spec.runtime.intraOpThreads: must be ≥ 0"));
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) { b.spec.runtime.metricsLingerSeconds = 0; }),
              IsEmpty());
}

TEST(ValidationTest, BackendMatchesDevice) {
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) { b.spec.runtime.backend = Backend::NCCL; }),
              ElementsAre("spec.runtime.backend: nccl needs spec.runtime.device cuda"));
  // Gloo on CUDA tensors: how several ranks share one GPU.
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) { b.spec.runtime.device = Device::CUDA; }),
              IsEmpty());
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) {
                b.spec.runtime.backend = Backend::NCCL;
                b.spec.runtime.device = Device::CUDA;
              }),
              IsEmpty());
}

TEST(ValidationTest, GpusPerRankOnlyWithCudaAndInRange) {
  for (Backend backend : {Backend::NCCL, Backend::Gloo}) {
    for (int gpus : {1, 2, 16}) {
      EXPECT_THAT(errorsAfter([&](DistBenchmark& b) {
                    b.spec.runtime.backend = backend;
                    b.spec.runtime.device = Device::CUDA;
                    b.spec.runtime.gpusPerRank = gpus;
                  }),
                  IsEmpty());
    }
  }
  for (int gpus : {-1, 0, 17}) {
    EXPECT_THAT(errorsAfter([&](DistBenchmark& b) {
                  b.spec.runtime.device = Device::CUDA;
                  b.spec.runtime.gpusPerRank = gpus;
                }),
                ElementsAre("spec.runtime.gpusPerRank: must be in 1..16"));
  }
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) { b.spec.runtime.gpusPerRank = 1; }),
              ElementsAre("spec.runtime.gpusPerRank: gpusPerRank needs spec.runtime.device cuda"));
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) { b.spec.runtime.gpusPerRank = 0; }),
              ElementsAre("spec.runtime.gpusPerRank: gpusPerRank needs spec.runtime.device cuda",
                          "spec.runtime.gpusPerRank: must be in 1..16"));
}

TEST(ValidationTest, ImageMayBeEmpty) {
  // Empty: the operator's default worker image for the device.
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) { b.spec.runtime.image.clear(); }), IsEmpty());
  EXPECT_EQ(RuntimeSpec{}.image, "") << "the default";
}

TEST(ValidationTest, RunPolicy) {
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) {
                b.spec.runPolicy.backoffLimit = -1;
                b.spec.runPolicy.activeDeadlineSeconds = 0;
                b.spec.runPolicy.ttlSecondsAfterFinished = -1;
              }),
              ElementsAre("spec.runPolicy.backoffLimit: must be ≥ 0",
                          "spec.runPolicy.activeDeadlineSeconds: must be ≥ 1",
                          "spec.runPolicy.ttlSecondsAfterFinished: must be ≥ 0"));
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) {
                b.spec.runPolicy.backoffLimit = 0;
                b.spec.runPolicy.activeDeadlineSeconds = 1;
                b.spec.runPolicy.ttlSecondsAfterFinished = 0;
                b.spec.runPolicy.cleanPodPolicy = CleanPodPolicy::None;
              }),
              IsEmpty());
}

TEST(ValidationTest, BaselineHasOneSourceThatIsNotItself) {
  auto baseline = [](Baseline value) {
    return [value](DistBenchmark& b) { b.spec.baseline = value; };
  };
  EXPECT_THAT(errorsAfter(baseline({"nightly", std::nullopt, 5})), IsEmpty());
  EXPECT_THAT(errorsAfter(baseline({std::nullopt, ConfigMapKeyRef{"base.lines", "a_b-c.json"}, 0})),
              IsEmpty());
  EXPECT_THAT(errorsAfter(baseline({std::nullopt, std::nullopt, 5})),
              ElementsAre("spec.baseline: set exactly one of benchmark and configMap"));
  EXPECT_THAT(errorsAfter(baseline({"nightly", ConfigMapKeyRef{"b", "k"}, 5})),
              ElementsAre("spec.baseline: set exactly one of benchmark and configMap"));
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) {
                b.spec.baseline = Baseline{b.metadata.name, std::nullopt, 5};
              }),
              ElementsAre("spec.baseline.benchmark: names this benchmark itself; a run cannot "
                          "be its own baseline"));
  EXPECT_THAT(errorsAfter(baseline({"Nightly", std::nullopt, -1})),
              ElementsAre("spec.baseline.benchmark: must be a DistBenchmark's name (a DNS-1123 "
                          "label), got \"Nightly\"",
                          "spec.baseline.thresholdPercent: must be a percentage ≥ 0"));
  EXPECT_THAT(errorsAfter(baseline({std::nullopt, ConfigMapKeyRef{"-b", "a/b"}, 5})),
              ElementsAre("spec.baseline.configMap.name: must be a ConfigMap's name (a DNS-1123 "
                          "subdomain), got \"-b\"",
                          "spec.baseline.configMap.key: must be a ConfigMap key: letters, digits, "
                          "'-', '_' and '.', got \"a/b\""));
}

TEST(ValidationTest, Quantities) {
  for (const char* good : {"0", "2", "500m", "0.5", ".5", "5.", "1.5Gi", "64Ki", "1e3", "1E-2",
                           "1E", "100M", "1n", "1u", "2k", "8Ei"}) {
    SCOPED_TRACE(good);
    EXPECT_THAT(errorsAfter([&](DistBenchmark& b) {
                  b.spec.podTemplates.trainer.requests = {{"cpu", good}};
                  b.spec.podTemplates.master.limits = {{"memory", good}};
                }),
                IsEmpty());
  }
  for (const char* bad : {"", "-1", "+1", "1.2.3", "x", " 1", "1 ", "1Gb", "1ki", "1K", "1e", "1e+",
                          "e3", ".", "1mi", "1 Gi"}) {
    SCOPED_TRACE(bad);
    const std::string got = std::string(", got \"") + bad + "\"";
    EXPECT_THAT(
        errorsAfter([&](DistBenchmark& b) {
          b.spec.podTemplates.parameterServer.requests = {{"cpu", bad}};
          b.spec.podTemplates.trainer.limits = {{"nvidia.com/gpu", bad}};
        }),
        ElementsAre("spec.podTemplates.parameterServer.resources.requests.cpu: must be a quantity "
                    "such as 2, 500m or 4Gi" +
                        got,
                    "spec.podTemplates.trainer.resources.limits.nvidia.com/gpu: must be a quantity "
                    "such as 2, 500m or 4Gi" +
                        got));
  }
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) {
                b.spec.podTemplates.master.limits = {{"", "1"}};
              }),
              ElementsAre("spec.podTemplates.master.resources.limits: resource names must not be "
                          "empty"));
}

TEST(ValidationTest, NodeSelectorKeys) {
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) {
                b.spec.podTemplates.trainer.nodeSelector = {{"", "x"}, {"zone", "a"}};
              }),
              ElementsAre("spec.podTemplates.trainer.nodeSelector: keys must not be empty"));
  EXPECT_THAT(errorsAfter([](DistBenchmark& b) {
                b.spec.podTemplates.trainer.nodeSelector = {{"kubernetes.io/arch", ""}};
              }),
              IsEmpty());
}

TEST(ValidationTest, Tolerations) {
  auto errorsFor = [](const Toleration& t) {
    return errorsAfter([&](DistBenchmark& b) {
      b.spec.podTemplates.trainer.tolerations = {Toleration{"ok", "Exists", "", "", {}}, t};
    });
  };
  const std::string at = "spec.podTemplates.trainer.tolerations[1].";
  EXPECT_THAT(errorsFor({"gpu", "Exists", "yes", "NoSchedule", {}}),
              ElementsAre(at + "value: must be empty when operator is Exists"));
  EXPECT_THAT(errorsFor({"", "Equal", "", "", {}}),
              ElementsAre(at + "operator: must be Exists when key is empty (which tolerates "
                               "every taint)"));
  EXPECT_THAT(errorsFor({"gpu", "In", "", "", {}}),
              ElementsAre(at + "operator: must be one of Equal, Exists"));
  EXPECT_THAT(errorsFor({"gpu", "Equal", "a", "NoEvict", {}}),
              ElementsAre(at + "effect: must be one of NoSchedule, PreferNoSchedule, NoExecute"));
  for (const char* effect : {"", "NoSchedule", "PreferNoSchedule"}) {
    SCOPED_TRACE(effect);
    EXPECT_THAT(errorsFor({"gpu", "Equal", "a", effect, 60}),
                ElementsAre(at + "tolerationSeconds: only allowed when effect is NoExecute"));
  }
  // As core/v1: any tolerationSeconds with NoExecute (≤ 0 evicts at once).
  for (int64_t seconds : {int64_t{-5}, int64_t{0}, int64_t{3600}}) {
    EXPECT_THAT(errorsFor({"gpu", "Equal", "a", "NoExecute", seconds}), IsEmpty());
  }
  EXPECT_THAT(errorsFor({"", "Exists", "", "", {}}), IsEmpty());
  EXPECT_THAT(errorsFor({"dedicated", "Equal", "", "PreferNoSchedule", {}}), IsEmpty());
}

TEST(ValidationTest, ValidateOrThrowCarriesEveryError) {
  DistBenchmark b = minimalBenchmark();
  EXPECT_NO_THROW(validateOrThrow(b));
  b.spec.topology.trainers = 0;
  b.spec.runtime.gpusPerRank = 2;
  try {
    validateOrThrow(b);
    FAIL() << "expected SpecError";
  } catch (const SpecError& e) {
    EXPECT_THAT(
        test::strings(e.errors()),
        ElementsAre("spec.topology.trainers: must be ≥ 1",
                    "spec.runtime.gpusPerRank: gpusPerRank needs spec.runtime.device cuda"));
    EXPECT_STREQ(e.what(),
                 "spec.topology.trainers: must be ≥ 1\nspec.runtime.gpusPerRank: gpusPerRank "
                 "needs spec.runtime.device cuda");
  }
}

}  // namespace
}  // namespace distbench::api
