#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "distbench/api/presets.h"
#include "test_util.h"

namespace distbench::api {
namespace {

using test::document;
using test::kHeader;
using test::kMinimal;
using test::minimalBenchmark;
using test::parseErrors;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// A benchmark with every field away from its default, and strings that a
// careless writer would mangle.
DistBenchmark everythingSet() {
  DistBenchmark b;
  b.metadata.name = "everything";
  b.metadata.namespace_ = "bench-ns";
  b.metadata.labels = {{"app.kubernetes.io/name", "distbench"},
                       {"numeric", "123"},
                       {"booly", "true"},
                       {"empty", ""},
                       {"yes", "no"}};
  b.metadata.annotations = {{"note", "a: b # not a comment\n\"quoted\" \\ back\ttab é"},
                            {"control", std::string("bell\x07")},
                            {"float", "1e3"}};
  b.spec.topology = {5, 3};
  b.spec.benchmark.seed = -9007199254740993;  // needs all 64 bits
  b.spec.benchmark.bucketCapMB = 0.1;
  HybridDDPRPCSpec& h = b.spec.benchmark.hybridDDPRPC;
  h.numEmbeddings = 2147483648;  // past int32: needs all 64 bits, and the most allowed
  h.embeddingDim = 1;
  h.embeddingMode = EmbeddingMode::Max;
  h.denseLayers = {"ReLU", "1024", "ReLU", "3"};
  h.epochs = 2;
  h.warmupEpochs = 0;
  h.batchesPerEpoch = 3;
  h.minBagIndices = 4;
  h.maxBagIndices = 4;
  h.maxOffsetStep = 1;
  h.learningRate = 1.0 / 3.0;
  h.parameterServerMode = ParameterServerMode::Sync;
  RuntimeSpec& r = b.spec.runtime;
  r.backend = Backend::NCCL;
  r.device = Device::CUDA;
  r.gpusPerRank = 16;
  r.masterPort = 1;
  r.metricsPort = 65535;
  r.rendezvousTimeoutSeconds = 1;
  r.peerTimeoutSeconds = 2;
  r.metricsLingerSeconds = 0;
  r.intraOpThreads = 4;
  r.image = "registry.example:5000/distbench/worker@sha256:abc";
  b.spec.runPolicy = {0, 9007199254740993, 0, CleanPodPolicy::None};
  PodTemplates& t = b.spec.podTemplates;
  t.master.image = "registry.example/master:1";
  t.master.tolerations = {{"", "Exists", "", "", std::nullopt}};
  t.parameterServer.requests = {{"cpu", "2"}, {"memory", "4Gi"}};
  t.parameterServer.limits = {{"memory", "1e3"}};
  t.parameterServer.nodeSelector = {
      {"kubernetes.io/arch", "amd64"}, {"numeric", "123"}, {"booly", "true"}, {"empty", ""}};
  t.trainer.requests = {{"cpu", "500m"}, {"nvidia.com/gpu", "1"}};
  t.trainer.limits = {{"cpu", ".5"}, {"nvidia.com/gpu", "1"}};
  t.trainer.tolerations = {{"nvidia.com/gpu", "Exists", "", "NoSchedule", std::nullopt},
                           {"dedicated", "Equal", "true", "NoExecute", -1},
                           {"spot", "Equal", "yes", "", std::nullopt}};
  t.trainer.podSecurityContext = {false, 0, 0, 1000, SeccompProfile{"Localhost", "profiles/gpu.json"}};
  t.trainer.securityContext = {true, false, std::vector<std::string>{"IPC_LOCK"},
                               std::vector<std::string>{}};
  t.master.securityContext.readOnlyRootFilesystem = false;
  t.parameterServer.podSecurityContext.seccompProfile = SeccompProfile{"Unconfined", ""};
  b.spec.baseline = Baseline{std::nullopt, ConfigMapKeyRef{"baselines.v1", "hybrid_run-2.json"}, 2.5};
  return b;
}

TEST(ParseTest, SmallestDocumentTakesStructDefaults) {
  EXPECT_EQ(parseDistBenchmark(kMinimal), minimalBenchmark());
}

TEST(ParseTest, EveryFieldIsRead) {
  const std::string yaml = R"(apiVersion: distbench.io/v1alpha1
kind: DistBenchmark
metadata:
  name: full
  namespace: team-a
  labels: {team: a}
  annotations: {owner: "someone"}
spec:
  topology: {trainers: 4, parameterServers: 1}
  benchmark:
    kind: HybridDDPRPC
    seed: 42
    bucketCapMB: 12.5
    hybridDDPRPC:
      numEmbeddings: 1000
      embeddingDim: 32
      embeddingMode: mean
      denseLayers: [64, ReLU, "10"]
      epochs: 3
      warmupEpochs: 1
      batchesPerEpoch: 7
      minBagIndices: 2
      maxBagIndices: 9
      maxOffsetStep: 3
      learningRate: 1e-2
      parameterServerMode: Sync
  runtime:
    backend: gloo
    device: cpu
    masterPort: 30000
    metricsPort: 9401
    rendezvousTimeoutSeconds: 20
    peerTimeoutSeconds: 10
    metricsLingerSeconds: 0
    intraOpThreads: 2
    image: example/worker:1.0
  runPolicy:
    backoffLimit: 1
    activeDeadlineSeconds: 3600
    ttlSecondsAfterFinished: 60
    cleanPodPolicy: All
  podTemplates:
    master:
      resources:
        requests: {cpu: 1}
    parameterServer:
      image: example/ps:1.0
      nodeSelector: {pool: cpu}
    trainer:
      resources:
        requests: {cpu: "500m", memory: 2Gi, nvidia.com/gpu: 1}
        limits: {nvidia.com/gpu: "1"}
      tolerations:
        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
        - key: spot
          value: "true"
          effect: NoExecute
          tolerationSeconds: 30
      podSecurityContext:
        runAsNonRoot: false
        runAsUser: 0
        seccompProfile: {type: RuntimeDefault}
      securityContext:
        allowPrivilegeEscalation: false
        capabilities: {add: [IPC_LOCK], drop: [ALL]}
)";
  DistBenchmark expected;
  expected.metadata = {"full", "team-a", {{"team", "a"}}, {{"owner", "someone"}}};
  expected.spec.topology = {4, 1};
  expected.spec.benchmark.seed = 42;
  expected.spec.benchmark.bucketCapMB = 12.5;
  HybridDDPRPCSpec& h = expected.spec.benchmark.hybridDDPRPC;
  h = {1000, 32,   EmbeddingMode::Mean,      {"64", "ReLU", "10"}, 3, 1, 7, 2, 9,
       3,    0.01, ParameterServerMode::Sync};
  expected.spec.runtime = {
      Backend::Gloo, Device::CPU, std::nullopt, 30000, 9401, 20, 10, 0, 2, "example/worker:1.0"};
  expected.spec.runPolicy = {1, 3600, 60, CleanPodPolicy::All};
  expected.spec.podTemplates.master.requests = {{"cpu", "1"}};
  expected.spec.podTemplates.parameterServer.image = "example/ps:1.0";
  expected.spec.podTemplates.parameterServer.nodeSelector = {{"pool", "cpu"}};
  PodTemplate& trainer = expected.spec.podTemplates.trainer;
  trainer.requests = {{"cpu", "500m"}, {"memory", "2Gi"}, {"nvidia.com/gpu", "1"}};
  trainer.limits = {{"nvidia.com/gpu", "1"}};
  trainer.tolerations = {{"nvidia.com/gpu", "Exists", "", "NoSchedule", std::nullopt},
                         {"spot", "Equal", "true", "NoExecute", 30}};
  trainer.podSecurityContext.runAsNonRoot = false;
  trainer.podSecurityContext.runAsUser = 0;
  trainer.podSecurityContext.seccompProfile = SeccompProfile{"RuntimeDefault", ""};
  trainer.securityContext.allowPrivilegeEscalation = false;
  trainer.securityContext.capabilitiesAdd = std::vector<std::string>{"IPC_LOCK"};
  trainer.securityContext.capabilitiesDrop = std::vector<std::string>{"ALL"};
  EXPECT_EQ(parseDistBenchmark(yaml), expected);
}

TEST(ParseTest, NullFieldsKeepTheirDefaults) {
  const DistBenchmark b = parseDistBenchmark(
      document("spec:\n  topology:\n    trainers: ~\n    parameterServers: null\n  runtime:\n"));
  EXPECT_EQ(b.spec.topology, TopologySpec{});
  EXPECT_EQ(b.spec.runtime, RuntimeSpec{});
}

TEST(ParseTest, MissingSpecTakesAllDefaults) {
  DistBenchmark expected;
  expected.metadata.name = "small";
  EXPECT_EQ(parseDistBenchmark(kHeader), expected);
}

TEST(ParseTest, UnknownFieldNamesItsFullPath) {
  EXPECT_THAT(parseErrors(document("spec:\n  benchmark:\n    hybridDDPRPC:\n"
                                   "      embedingDim: 8\n")),
              ElementsAre("spec.benchmark.hybridDDPRPC.embedingDim: unknown field"));
  EXPECT_THAT(parseErrors(document("spec:\n  topology:\n    trainer: 2\n")),
              ElementsAre("spec.topology.trainer: unknown field"));
  EXPECT_THAT(parseErrors(kMinimal + "extra: 1\n"), ElementsAre("extra: unknown field"));
  EXPECT_THAT(parseErrors(kMinimal + "  scheduling: {}\n"),
              ElementsAre("spec.scheduling: unknown field"));
}

TEST(ParseTest, DuplicateFieldIsAnError) {
  EXPECT_THAT(parseErrors(document("spec:\n  topology:\n    trainers: 2\n    trainers: 3\n")),
              ElementsAre("spec.topology.trainers: duplicate field"));
}

TEST(ParseTest, IntegerFieldRejectsEverythingButIntegers) {
  for (const char* value : {"3.5", "abc", "true", "\"3\"", "[3]", "{n: 3}", "0x10", "3e2"}) {
    SCOPED_TRACE(value);
    EXPECT_THAT(
        parseErrors(document(std::string("spec:\n  topology:\n    trainers: ") + value + "\n")),
        ElementsAre("spec.topology.trainers: must be an integer"));
  }
}

TEST(ParseTest, IntegerFieldAcceptsSignsAndRejectsOverflow) {
  EXPECT_EQ(
      parseDistBenchmark(document("spec:\n  topology:\n    trainers: +4\n")).spec.topology.trainers,
      4);
  EXPECT_THAT(parseErrors(document("spec:\n  topology:\n    trainers: 2147483648\n")),
              ElementsAre("spec.topology.trainers: must be an integer between -2147483648 and "
                          "2147483647"));
  EXPECT_EQ(parseDistBenchmark(document("spec:\n  benchmark:\n    seed: -9223372036854775808\n"))
                .spec.benchmark.seed,
            INT64_MIN);
}

TEST(ParseTest, NumberFieldAcceptsIntegersAndFloatsOnly) {
  const auto rate = [](const std::string& v) {
    return document("spec:\n  benchmark:\n    hybridDDPRPC:\n      learningRate: " + v + "\n");
  };
  EXPECT_EQ(parseDistBenchmark(rate("1")).spec.benchmark.hybridDDPRPC.learningRate, 1.0);
  EXPECT_EQ(parseDistBenchmark(rate(".5")).spec.benchmark.hybridDDPRPC.learningRate, 0.5);
  EXPECT_EQ(parseDistBenchmark(rate("2.5E-1")).spec.benchmark.hybridDDPRPC.learningRate, 0.25);
  EXPECT_EQ(parseDistBenchmark(rate("1.")).spec.benchmark.hybridDDPRPC.learningRate, 1.0);
  EXPECT_EQ(parseDistBenchmark(rate("+5e+2")).spec.benchmark.hybridDDPRPC.learningRate, 500.0);
  for (const char* bad : {"fast", "\"0.1\"", "true", "[0.1]", ".", "1e", "e5", "1.5.2", "0x1p3"}) {
    SCOPED_TRACE(bad);
    EXPECT_THAT(parseErrors(rate(bad)),
                ElementsAre("spec.benchmark.hybridDDPRPC.learningRate: must be a number"));
  }
  for (const char* nonFinite : {".inf", ".nan", "1e999"}) {
    SCOPED_TRACE(nonFinite);
    EXPECT_THAT(parseErrors(rate(nonFinite)),
                ElementsAre("spec.benchmark.hybridDDPRPC.learningRate: must be a finite number"));
  }
}

TEST(ParseTest, StringFieldRejectsNumbersBoolsAndObjects) {
  for (const char* value : {"5", "1.5", "false", "{a: b}"}) {
    SCOPED_TRACE(value);
    EXPECT_THAT(parseErrors(kMinimal + "  runtime:\n    image: " + value + "\n"),
                ElementsAre("spec.runtime.image: must be a string"));
  }
  // Quoting, or an explicit tag, makes anything a string.
  EXPECT_EQ(parseDistBenchmark(kMinimal + "  runtime:\n    image: \"5\"\n").spec.runtime.image,
            "5");
  EXPECT_EQ(parseDistBenchmark(kMinimal + "  runtime:\n    image: !!str 5\n").spec.runtime.image,
            "5");
}

TEST(ParseTest, ObjectFieldRejectsScalarsAndLists) {
  EXPECT_THAT(parseErrors(document("spec:\n  topology: 3\n")),
              ElementsAre("spec.topology: must be an object"));
  EXPECT_THAT(parseErrors(document("spec: [1, 2]\n")), ElementsAre("spec: must be an object"));
}

TEST(ParseTest, BadEnumListsAllowedValues) {
  EXPECT_THAT(
      parseErrors(kMinimal + "  benchmark:\n    kind: Ddp\n"),
      ElementsAre("spec.benchmark.kind: must be one of HybridDDPRPC, DDP, Collectives, Fabric"));
  EXPECT_THAT(
      parseErrors(kMinimal + "  benchmark:\n    hybridDDPRPC:\n      embeddingMode: Sum\n"),
      ElementsAre("spec.benchmark.hybridDDPRPC.embeddingMode: must be one of sum, mean, max"));
  EXPECT_THAT(
      parseErrors(kMinimal + "  benchmark:\n    hybridDDPRPC:\n      parameterServerMode: 1\n"),
      ElementsAre("spec.benchmark.hybridDDPRPC.parameterServerMode: must be one of Async, Sync"));
  EXPECT_THAT(parseErrors(kMinimal + "  runtime:\n    backend: mpi\n"),
              ElementsAre("spec.runtime.backend: must be one of gloo, nccl"));
  EXPECT_THAT(parseErrors(kMinimal + "  runtime:\n    device: [gpu]\n"),
              ElementsAre("spec.runtime.device: must be one of cpu, cuda"));
}

TEST(ParseTest, EnumSpellingsAreAccepted) {
  const DistBenchmark b = parseDistBenchmark(
      kMinimal +
      "  benchmark:\n    kind: \"HybridDDPRPC\"\n    hybridDDPRPC:\n      embeddingMode: max\n"
      "      parameterServerMode: Sync\n  runtime:\n    backend: nccl\n    device: cuda\n");
  EXPECT_EQ(b.spec.benchmark.kind, BenchmarkKind::HybridDDPRPC);
  EXPECT_EQ(b.spec.benchmark.hybridDDPRPC.embeddingMode, EmbeddingMode::Max);
  EXPECT_EQ(b.spec.benchmark.hybridDDPRPC.parameterServerMode, ParameterServerMode::Sync);
  EXPECT_EQ(b.spec.runtime.backend, Backend::NCCL);
  EXPECT_EQ(b.spec.runtime.device, Device::CUDA);
}

TEST(ParseTest, DenseLayersAcceptIntegersAndStrings) {
  const DistBenchmark b = parseDistBenchmark(
      kMinimal + "  benchmark:\n    hybridDDPRPC:\n      denseLayers: [256, \"128\", ReLU, 8]\n");
  EXPECT_EQ(b.spec.benchmark.hybridDDPRPC.denseLayers,
            (std::vector<std::string>{"256", "128", "ReLU", "8"}));
  const DistBenchmark block = parseDistBenchmark(
      kMinimal +
      "  benchmark:\n    hybridDDPRPC:\n      denseLayers:\n        - 16\n        - 4\n");
  EXPECT_EQ(block.spec.benchmark.hybridDDPRPC.denseLayers, (std::vector<std::string>{"16", "4"}));
}

TEST(ParseTest, DenseLayersRejectOtherTypes) {
  const std::string prefix = kMinimal + "  benchmark:\n    hybridDDPRPC:\n      denseLayers: ";
  EXPECT_THAT(parseErrors(prefix + "[256, 1.5, true, 8]\n"),
              ElementsAre("spec.benchmark.hybridDDPRPC.denseLayers[1]: must be a string or an "
                          "integer",
                          "spec.benchmark.hybridDDPRPC.denseLayers[2]: must be a string or an "
                          "integer"));
  EXPECT_THAT(parseErrors(prefix + "\"256 8\"\n"),
              ElementsAre("spec.benchmark.hybridDDPRPC.denseLayers: must be a list"));
}

TEST(ParseTest, MetadataLabelsMustBeStrings) {
  EXPECT_THAT(parseErrors(document("  labels:\n    tier: 1\n" + kMinimal.substr(kHeader.size()))),
              ElementsAre("metadata.labels.tier: must be a string"));
}

TEST(ParseTest, ApiVersionAndKindAreRequiredAndChecked) {
  const std::string body = kMinimal.substr(kMinimal.find("metadata:"));
  EXPECT_THAT(parseErrors(body), ElementsAre("apiVersion: required", "kind: required"));
  EXPECT_THAT(
      parseErrors("apiVersion: distbench.io/v1\nkind: Benchmark\n" + body),
      ElementsAre("apiVersion: must be distbench.io/v1alpha1", "kind: must be DistBenchmark"));
}

TEST(ParseTest, MetadataNameIsRequired) {
  EXPECT_THAT(parseErrors("apiVersion: distbench.io/v1alpha1\nkind: DistBenchmark\n"),
              ElementsAre("metadata.name: required"));
}

TEST(ParseTest, ParsedDocumentIsValidated) {
  EXPECT_THAT(parseErrors(document("spec:\n  topology:\n    trainers: 0\n")),
              ElementsAre("spec.topology.trainers: must be ≥ 1"));
}

TEST(ParseTest, ReportsEveryErrorTogether) {
  const std::string yaml = R"(apiVersion: distbench.io/v1alpha1
kind: DistBenchmark
metadata:
  name: 7
spec:
  topology:
    trainers: 3.5
    parameterServers: 0
  benchmark:
    kind: Nope
    hybridDDPRPC:
      embedingDim: 8
  runtime:
    masterPort: 0
)";
  try {
    parseDistBenchmark(yaml);
    FAIL() << "expected SpecError";
  } catch (const SpecError& e) {
    // A field that failed to parse is not validated again (no "metadata.name: required").
    const std::vector<std::string> expected = {
        "metadata.name: must be a string",
        "spec.topology.trainers: must be an integer",
        "spec.benchmark.kind: must be one of HybridDDPRPC, DDP, Collectives, Fabric",
        "spec.benchmark.hybridDDPRPC.embedingDim: unknown field",
        "spec.topology.parameterServers: must be ≥ 1",
        "spec.runtime.masterPort: must be in 1..65535",
    };
    EXPECT_EQ(test::strings(e.errors()), expected);
    std::string joined;
    for (const std::string& line : expected) joined += (joined.empty() ? "" : "\n") + line;
    EXPECT_EQ(std::string(e.what()), joined);
  }
}

TEST(ParseTest, InvalidYamlSyntaxNamesLineAndColumn) {
  try {
    parseDistBenchmark(kHeader + "spec:\n  topology: {trainers: 3\n");
    FAIL() << "expected SpecError";
  } catch (const SpecError& e) {
    ASSERT_EQ(e.errors().size(), 1u);
    EXPECT_EQ(e.errors()[0].field, "<document>");
    EXPECT_THAT(e.errors()[0].message, ::testing::MatchesRegex("line [0-9]+, column [0-9]+: .+"));
  }
  EXPECT_THAT(parseErrors("a: b: c\n"), ElementsAre(HasSubstr("<document>: line 1, column")));
}

TEST(ParseTest, DocumentMustBeOneObject) {
  EXPECT_THAT(parseErrors(""),
              ElementsAre("<document>: expected one DistBenchmark document, found 0"));
  EXPECT_THAT(parseErrors(kMinimal + "---\n" + kMinimal),
              ElementsAre("<document>: expected one DistBenchmark document, found 2"));
  EXPECT_THAT(parseErrors("- a\n- b\n"), ElementsAre("<document>: must be a DistBenchmark object"));
}

TEST(ParseTest, RunPolicyErrorsNameTheField) {
  EXPECT_THAT(
      parseErrors(kMinimal + "  runPolicy:\n    cleanPodPolicy: Sometimes\n"
                             "    backoffLimit: \"3\"\n    activeDeadlineSeconds: 1.5\n"
                             "    ttlSecondsAfterFinished: [1]\n    restartPolicy: Never\n"),
      ElementsAre("spec.runPolicy.cleanPodPolicy: must be one of Running, All, None",
                  "spec.runPolicy.backoffLimit: must be an integer",
                  "spec.runPolicy.activeDeadlineSeconds: must be an integer",
                  "spec.runPolicy.ttlSecondsAfterFinished: must be an integer",
                  "spec.runPolicy.restartPolicy: unknown field"));
  EXPECT_THAT(parseErrors(kMinimal + "  runPolicy:\n    backoffLimit: -1\n"),
              ElementsAre("spec.runPolicy.backoffLimit: must be ≥ 0"));
  EXPECT_THAT(parseErrors(kMinimal + "  runPolicy: Never\n"),
              ElementsAre("spec.runPolicy: must be an object"));
}

TEST(ParseTest, BaselineIsReadAndItsErrorsNameTheField) {
  const DistBenchmark b =
      parseDistBenchmark(kMinimal + "  baseline:\n    benchmark: nightly\n");
  ASSERT_TRUE(b.spec.baseline.has_value());
  EXPECT_EQ(b.spec.baseline->benchmark, "nightly");
  EXPECT_FALSE(b.spec.baseline->configMap.has_value());
  EXPECT_EQ(b.spec.baseline->thresholdPercent, 5) << "the default, as the CRD's";
  EXPECT_FALSE(parseDistBenchmark(kMinimal).spec.baseline.has_value());
  EXPECT_THAT(parseErrors(kMinimal + "  baseline:\n    configMap: {name: b}\n"
                                     "    thresholdPercent: lots\n    file: x.json\n"),
              ElementsAre("spec.baseline.thresholdPercent: must be a number",
                          "spec.baseline.file: unknown field", "spec.baseline.configMap.key: required"));
}

TEST(ParseTest, RunPolicyOptionalsStayUnsetWhenAbsentOrNull) {
  const DistBenchmark b = parseDistBenchmark(
      kMinimal + "  runPolicy:\n    activeDeadlineSeconds: ~\n    ttlSecondsAfterFinished:\n");
  EXPECT_EQ(b.spec.runPolicy, RunPolicy{});
  EXPECT_FALSE(b.spec.runPolicy.activeDeadlineSeconds);
}

TEST(ParseTest, GpusPerRankIsAnOptionalIntegerForCudaOnly) {
  const std::string cuda = kMinimal + "  runtime:\n    device: cuda\n    backend: nccl\n";
  EXPECT_FALSE(parseDistBenchmark(cuda).spec.runtime.gpusPerRank) << "absent stays unset";
  EXPECT_FALSE(parseDistBenchmark(cuda + "    gpusPerRank: ~\n").spec.runtime.gpusPerRank);
  EXPECT_EQ(parseDistBenchmark(cuda + "    gpusPerRank: 4\n").spec.runtime.gpusPerRank, 4);
  EXPECT_EQ(parseDistBenchmark(cuda + "    gpusPerRank: 16\n").spec.runtime.gpusPerRank, 16);
  EXPECT_THAT(parseErrors(cuda + "    gpusPerRank: \"2\"\n"),
              ElementsAre("spec.runtime.gpusPerRank: must be an integer"));
  EXPECT_THAT(parseErrors(cuda + "    gpusPerRank: 2147483648\n"),
              ElementsAre("spec.runtime.gpusPerRank: must be an integer between -2147483648 and "
                          "2147483647"));
  EXPECT_THAT(parseErrors(cuda + "    gpusPerRank: 0\n"),
              ElementsAre("spec.runtime.gpusPerRank: must be in 1..16"));
  EXPECT_THAT(parseErrors(cuda + "    gpusPerRank: 17\n"),
              ElementsAre("spec.runtime.gpusPerRank: must be in 1..16"));
  // On CPU even the default value is refused: naming GPUs means a GPU run.
  EXPECT_THAT(parseErrors(kMinimal + "  runtime:\n    gpusPerRank: 1\n"),
              ElementsAre("spec.runtime.gpusPerRank: gpusPerRank needs spec.runtime.device cuda"));
  EXPECT_THAT(parseErrors(kMinimal + "  runtime:\n    gpusPerRank: ~\n"), IsEmpty());
}

TEST(ParseTest, RuntimeImageMayBeEmptyOrAbsent) {
  for (const char* line : {"", "    image: \"\"\n", "    image: ~\n"}) {
    SCOPED_TRACE(line);
    EXPECT_EQ(parseDistBenchmark(kMinimal + "  runtime:\n" + line).spec.runtime.image, "");
  }
}

TEST(ParseTest, PodTemplateErrorsNameTheFullPath) {
  const std::string yaml = kMinimal + R"(  podTemplates:
    trainer:
      image: 5
      resources:
        requests: {cpu: 0.5, memory: [1], gpu: true, ephemeral: ~}
        limit: {}
      nodeSelector: {zone: 1}
      tolerations:
        - {key: a, operator: In, effect: NoEvict, tolerationSeconds: "30", extra: 1}
        - 3
    worker: {}
)";
  EXPECT_THAT(
      parseErrors(yaml),
      ElementsAre(
          "spec.podTemplates.trainer.image: must be a string",
          "spec.podTemplates.trainer.resources.requests.cpu: must be a quantity: a string such "
          "as \"500m\" or an integer",
          "spec.podTemplates.trainer.resources.requests.memory: must be a quantity: a string such "
          "as \"500m\" or an integer",
          "spec.podTemplates.trainer.resources.requests.gpu: must be a quantity: a string such "
          "as \"500m\" or an integer",
          "spec.podTemplates.trainer.resources.requests.ephemeral: must be a quantity: a string "
          "such as \"500m\" or an integer",
          "spec.podTemplates.trainer.resources.limit: unknown field",
          "spec.podTemplates.trainer.nodeSelector.zone: must be a string",
          "spec.podTemplates.trainer.tolerations[0].operator: must be one of Equal, Exists",
          "spec.podTemplates.trainer.tolerations[0].effect: must be one of NoSchedule, "
          "PreferNoSchedule, NoExecute",
          "spec.podTemplates.trainer.tolerations[0].tolerationSeconds: must be an integer",
          "spec.podTemplates.trainer.tolerations[0].extra: unknown field",
          "spec.podTemplates.trainer.tolerations[1]: must be an object",
          "spec.podTemplates.worker: unknown field"));
  EXPECT_THAT(parseErrors(kMinimal + "  podTemplates:\n    master:\n      tolerations: {}\n"),
              ElementsAre("spec.podTemplates.master.tolerations: must be a list"));
  // An effect is one of the three or absent: "" is neither.
  EXPECT_THAT(parseErrors(kMinimal + "  podTemplates:\n    master:\n      tolerations:\n"
                                     "        - {operator: Exists, effect: \"\"}\n"),
              ElementsAre("spec.podTemplates.master.tolerations[0].effect: must be one of "
                          "NoSchedule, PreferNoSchedule, NoExecute"));
  // Parsed, then validated: the grammar and core/v1's rules.
  EXPECT_THAT(parseErrors(kMinimal + R"(  podTemplates:
    parameterServer:
      resources:
        limits: {cpu: 2x, memory: -1}
      tolerations:
        - {key: a, operator: Exists, value: b, tolerationSeconds: 5}
)"),
              ElementsAre("spec.podTemplates.parameterServer.resources.limits.cpu: must be a "
                          "quantity such as 2, 500m or 4Gi, got \"2x\"",
                          "spec.podTemplates.parameterServer.resources.limits.memory: must be a "
                          "quantity such as 2, 500m or 4Gi, got \"-1\"",
                          "spec.podTemplates.parameterServer.tolerations[0].value: must be empty "
                          "when operator is Exists",
                          "spec.podTemplates.parameterServer.tolerations[0].tolerationSeconds: "
                          "only allowed when effect is NoExecute"));
}

TEST(ParseTest, NodeSelectorValuesMayBeEmptyOrNull) {
  // As Go decodes null into a map[string]string; labels stay strict.
  const DistBenchmark b = parseDistBenchmark(
      kMinimal + "  podTemplates:\n    trainer:\n      nodeSelector: {a: \"\", b: ~, c: x}\n");
  EXPECT_EQ(b.spec.podTemplates.trainer.nodeSelector,
            (std::map<std::string, std::string>{{"a", ""}, {"b", ""}, {"c", "x"}}));
  EXPECT_THAT(parseErrors(document("  labels: {a: ~}\n" + kMinimal.substr(kHeader.size()))),
              ElementsAre("metadata.labels.a: must be a string"));
}

TEST(ParseTest, QuantitiesAreStringsOrIntegersKeptAsWritten) {
  const DistBenchmark b = parseDistBenchmark(
      kMinimal +
      "  podTemplates:\n    trainer:\n      resources:\n"
      "        requests: {cpu: 2, memory: \"4Gi\", nvidia.com/gpu: \"1\", pods: +3}\n"
      "        limits: {memory: !!str 100}\n");
  // An integer's '+' goes, as it would in JSON.
  EXPECT_EQ(b.spec.podTemplates.trainer.requests,
            (std::map<std::string, std::string>{
                {"cpu", "2"}, {"memory", "4Gi"}, {"nvidia.com/gpu", "1"}, {"pods", "3"}}));
  EXPECT_EQ(b.spec.podTemplates.trainer.limits,
            (std::map<std::string, std::string>{{"memory", "100"}}));
  // 1e3 reads as a YAML float, which JSON and the CRD refuse: quote it.
  EXPECT_THAT(parseErrors(kMinimal + "  podTemplates:\n    trainer:\n      resources:\n"
                                     "        limits: {cpu: 1e3}\n"),
              ElementsAre("spec.podTemplates.trainer.resources.limits.cpu: must be a quantity: a "
                          "string such as \"500m\" or an integer"));
}

// What `GET /apis/distbench.io/v1alpha1/namespaces/ml/distbenchmarks/small`
// returns: server-set metadata and a status the operator wrote.
const char* kApiServerJson = R"({
  "apiVersion": "distbench.io/v1alpha1",
  "kind": "DistBenchmark",
  "metadata": {
    "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{\"apiVersion\":\"distbench.io/v1alpha1\"}\n"},
    "creationTimestamp": "2024-05-01T10:00:00Z",
    "generation": 2,
    "labels": {"team": "ml"},
    "managedFields": [{"apiVersion": "distbench.io/v1alpha1", "fieldsType": "FieldsV1",
                       "fieldsV1": {"f:spec": {".": {}, "f:topology": {}}},
                       "manager": "kubectl-client-side-apply", "operation": "Update",
                       "time": "2024-05-01T10:00:00Z"}],
    "name": "small",
    "namespace": "ml",
    "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "x", "uid": "u",
                         "controller": true, "blockOwnerDeletion": true}],
    "resourceVersion": "12345",
    "uid": "0b9f3f5e-7a3e-4c1c-9a57-1f0d2c3b4a59"
  },
  "spec": {
    "benchmark": {"bucketCapMB": 25, "hybridDDPRPC": {"denseLayers": ["16", "ReLU", "8"], "learningRate": 0.1}},
    "topology": {"parameterServers": 2, "trainers": 3},
    "runPolicy": {"backoffLimit": 3, "cleanPodPolicy": "Running", "activeDeadlineSeconds": 600},
    "podTemplates": {"trainer": {"resources": {"requests": {"cpu": 2, "memory": "4Gi"}},
                                 "tolerations": [{"key": "gpu", "operator": "Exists",
                                                  "effect": "NoExecute", "tolerationSeconds": 30}]}}
  },
  "status": {
    "phase": "Running",
    "observedGeneration": 2,
    "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2024-05-01T10:00:05Z"}]
  }
})";

TEST(ParseJsonTest, AcceptsWhatTheApiServerReturns) {
  DistBenchmark expected = minimalBenchmark();
  expected.metadata.namespace_ = "ml";
  expected.metadata.labels = {{"team", "ml"}};
  expected.metadata.annotations = {{"kubectl.kubernetes.io/last-applied-configuration",
                                    "{\"apiVersion\":\"distbench.io/v1alpha1\"}\n"}};
  expected.spec.benchmark.hybridDDPRPC.denseLayers = {"16", "ReLU", "8"};
  expected.spec.benchmark.hybridDDPRPC.learningRate = 0.1;
  expected.spec.runPolicy.activeDeadlineSeconds = 600;
  expected.spec.podTemplates.trainer.requests = {{"cpu", "2"}, {"memory", "4Gi"}};
  expected.spec.podTemplates.trainer.tolerations = {{"gpu", "Exists", "", "NoExecute", 30}};
  EXPECT_EQ(parseDistBenchmark(kApiServerJson), expected);
}

TEST(ParseJsonTest, StrictAboutJsonTypes) {
  const std::string json = R"({"apiVersion": "distbench.io/v1alpha1", "kind": "DistBenchmark",
    "metadata": {"name": "small"},
    "spec": {"topology": {"trainers": "3", "parameterServers": true, "extra": null}}})";
  EXPECT_THAT(parseErrors(json), ElementsAre("spec.topology.trainers: must be an integer",
                                             "spec.topology.parameterServers: must be an integer",
                                             "spec.topology.extra: unknown field"));
}

TEST(RoundTripTest, YamlRoundTripKeepsEveryField) {
  for (const DistBenchmark& b :
       {minimalBenchmark(), everythingSet(), preset("default"), preset("tutorial")}) {
    SCOPED_TRACE(b.metadata.name);
    EXPECT_EQ(parseDistBenchmark(toYaml(b)), b);
  }
}

TEST(RoundTripTest, JsonRoundTripKeepsEveryField) {
  for (const DistBenchmark& b :
       {minimalBenchmark(), everythingSet(), preset("default"), preset("tutorial")}) {
    SCOPED_TRACE(b.metadata.name);
    EXPECT_EQ(parseDistBenchmark(toJson(b)), b);
  }
}

TEST(ToYamlTest, WritesEveryFieldInStructOrder) {
  const std::string yaml = toYaml(minimalBenchmark());
  std::size_t at = 0;
  for (const char* key : {"apiVersion: distbench.io/v1alpha1",
                          "kind: DistBenchmark",
                          "metadata:",
                          "name: small",
                          "namespace: default",
                          "labels: {}",
                          "annotations: {}",
                          "spec:",
                          "topology:",
                          "trainers: 3",
                          "parameterServers: 2",
                          "benchmark:",
                          "kind: HybridDDPRPC",
                          "seed: 0",
                          "bucketCapMB: 25",
                          "hybridDDPRPC:",
                          "numEmbeddings: 300",
                          "embeddingDim: 64",
                          "embeddingMode: sum",
                          "denseLayers: [256, 128, ReLU, 64, 32, 8]",
                          "epochs: 100",
                          "warmupEpochs: 5",
                          "batchesPerEpoch: 10",
                          "minBagIndices: 20",
                          "maxBagIndices: 50",
                          "maxOffsetStep: 10",
                          "learningRate: 0.05",
                          "parameterServerMode: Async",
                          "runtime:",
                          "backend: gloo",
                          "device: cpu",
                          "masterPort: 29500",
                          "metricsPort: 9400",
                          "rendezvousTimeoutSeconds: 300",
                          "peerTimeoutSeconds: 60",
                          "metricsLingerSeconds: 30",
                          "intraOpThreads: 1",
                          "image: \"\"",
                          "runPolicy:",
                          "backoffLimit: 3",
                          "cleanPodPolicy: Running",
                          "podTemplates:",
                          "master:",
                          "image: \"\"",
                          "resources:",
                          "requests: {}",
                          "limits: {}",
                          "nodeSelector: {}",
                          "tolerations: []",
                          "parameterServer:",
                          "image: \"\"",
                          "trainer:",
                          "image: \"\"",
                          "tolerations: []"}) {
    const std::size_t found = yaml.find(key, at);
    ASSERT_NE(found, std::string::npos) << "missing or out of order: " << key << "\n" << yaml;
    at = found + 1;
  }
}

TEST(ToYamlTest, WritesOptionalsOnlyWhenSet) {
  DistBenchmark b = minimalBenchmark();
  b.spec.podTemplates.trainer.tolerations = {{"gpu", "Exists", "", "", std::nullopt}};
  std::string yaml = toYaml(b);
  for (const char* key : {"gpusPerRank", "activeDeadlineSeconds", "ttlSecondsAfterFinished",
                          "effect", "tolerationSeconds"}) {
    EXPECT_THAT(yaml, ::testing::Not(HasSubstr(key)));
  }
  b.spec.runtime.device = Device::CUDA;
  b.spec.runtime.gpusPerRank = 2;
  b.spec.runPolicy.activeDeadlineSeconds = 600;
  b.spec.runPolicy.ttlSecondsAfterFinished = 0;
  b.spec.podTemplates.trainer.tolerations[0].effect = "NoExecute";
  b.spec.podTemplates.trainer.tolerations[0].tolerationSeconds = 30;
  yaml = toYaml(b);
  EXPECT_THAT(yaml, HasSubstr("device: cuda\n    gpusPerRank: 2\n"));
  EXPECT_THAT(yaml, HasSubstr("activeDeadlineSeconds: 600\n"));
  EXPECT_THAT(yaml, HasSubstr("ttlSecondsAfterFinished: 0\n"));
  EXPECT_THAT(yaml, HasSubstr("effect: NoExecute\n"));
  EXPECT_THAT(yaml, HasSubstr("tolerationSeconds: 30\n"));
}

TEST(ToYamlTest, QuantitiesAreWrittenAsStrings) {
  DistBenchmark b = minimalBenchmark();
  b.spec.podTemplates.trainer.requests = {{"cpu", "2"}, {"memory", "4Gi"}};
  const std::string yaml = toYaml(b);
  EXPECT_THAT(yaml, HasSubstr("cpu: \"2\""));
  EXPECT_THAT(yaml, HasSubstr("memory: 4Gi"));
}

TEST(ToYamlTest, QuotesStringsThatWouldReadAsOtherTypes) {
  DistBenchmark b = minimalBenchmark();
  b.metadata.labels = {{"a", "123"}, {"b", "true"}, {"c", "yes"}, {"d", "~"}};
  const std::string yaml = toYaml(b);
  EXPECT_THAT(yaml, HasSubstr("a: \"123\""));
  EXPECT_THAT(yaml, HasSubstr("b: \"true\""));
  EXPECT_THAT(yaml, HasSubstr("c: \"yes\""));
  EXPECT_THAT(yaml, HasSubstr("d: \"~\""));
}

TEST(ToYamlTest, LongStringsRoundTrip) {
  DistBenchmark b = minimalBenchmark();
  b.metadata.annotations = {{"digits", std::string(1 << 20, '7')},
                            {"text", std::string(1 << 20, 'x') + "1"}};
  EXPECT_EQ(parseDistBenchmark(toYaml(b)), b);
}

TEST(ToJsonTest, IsCompactAndEscapesStrings) {
  DistBenchmark b = minimalBenchmark();
  b.metadata.annotations = {{"k", std::string("q\" b\\ n\n c\x01")}};
  const std::string json = toJson(b);
  EXPECT_EQ(json.find('\n'), std::string::npos);
  EXPECT_EQ(json.rfind("{\"apiVersion\":\"distbench.io/v1alpha1\",\"kind\":\"DistBenchmark\","
                       "\"metadata\":{\"name\":\"small\",\"namespace\":\"default\",\"labels\":{},",
                       0),
            0u)
      << json;
  EXPECT_THAT(json, HasSubstr(R"("annotations":{"k":"q\" b\\ n\n c\u0001"})"));
  EXPECT_THAT(json, HasSubstr(R"("topology":{"trainers":3,"parameterServers":2})"));
  EXPECT_THAT(json, HasSubstr(R"("denseLayers":["256","128","ReLU","64","32","8"])"));
  EXPECT_THAT(json, HasSubstr(R"("learningRate":0.05,"parameterServerMode":"Async"})"));
  EXPECT_THAT(json, HasSubstr(R"("runPolicy":{"backoffLimit":3,"cleanPodPolicy":"Running"})"));
  EXPECT_THAT(json, HasSubstr(R"("master":{"image":"","resources":{"requests":{},"limits":{}},)"
                              R"("nodeSelector":{},"tolerations":[],"podSecurityContext":{},)"
                              R"("securityContext":{}})"));
  EXPECT_EQ(json.back(), '}');
}

TEST(ToJsonTest, WritesRunPolicyAndTolerationsLikeCoreV1) {
  DistBenchmark b = minimalBenchmark();
  b.spec.runPolicy.activeDeadlineSeconds = 600;
  b.spec.runPolicy.ttlSecondsAfterFinished = 60;
  b.spec.podTemplates.trainer.requests = {{"cpu", "2"}};
  b.spec.podTemplates.trainer.tolerations = {{"gpu", "Exists", "", "", std::nullopt},
                                             {"spot", "Equal", "1", "NoExecute", 30}};
  const std::string json = toJson(b);
  EXPECT_THAT(json, HasSubstr(R"("runPolicy":{"backoffLimit":3,"activeDeadlineSeconds":600,)"
                              R"("ttlSecondsAfterFinished":60,"cleanPodPolicy":"Running"})"));
  EXPECT_THAT(json, HasSubstr(R"("requests":{"cpu":"2"})"));
  EXPECT_THAT(json, HasSubstr(R"("tolerations":[{"key":"gpu","operator":"Exists","value":""},)"
                              R"({"key":"spot","operator":"Equal","value":"1",)"
                              R"("effect":"NoExecute","tolerationSeconds":30}])"));
}

TEST(ExamplesTest, EveryExampleParsesAndRoundTrips) {
  int examples = 0;
  for (const auto& entry : std::filesystem::directory_iterator(DISTBENCH_EXAMPLES_DIR)) {
    if (entry.path().extension() != ".yaml") continue;
    SCOPED_TRACE(entry.path().string());
    ++examples;
    const DistBenchmark b = loadDistBenchmarkFile(entry.path().string());
    EXPECT_EQ(parseDistBenchmark(toYaml(b)), b);
    EXPECT_EQ(parseDistBenchmark(toJson(b)), b);
  }
  EXPECT_GE(examples, 3);
}

class LoadFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/distbench_api_testXXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    for (const std::string& f : written_) std::remove(f.c_str());
    rmdir(dir_.c_str());
  }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    written_.push_back(path);
    return path;
  }
  std::string dir_;
  std::vector<std::string> written_;
};

TEST_F(LoadFileTest, LoadsAFile) {
  EXPECT_EQ(loadDistBenchmarkFile(write("small.yaml", kMinimal)), minimalBenchmark());
}

TEST_F(LoadFileTest, UnreadableFileSaysWhy) {
  const std::string missing = dir_ + "/missing.yaml";
  try {
    loadDistBenchmarkFile(missing);
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot read " + missing + ": No such file or directory");
  }
  try {
    loadDistBenchmarkFile(dir_);
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot read " + dir_ + ": Is a directory");
  }
}

TEST_F(LoadFileTest, SyntaxErrorNamesTheFile) {
  const std::string path = write("broken.yaml", "spec: [\n");
  try {
    loadDistBenchmarkFile(path);
    FAIL() << "expected SpecError";
  } catch (const SpecError& e) {
    ASSERT_EQ(e.errors().size(), 1u);
    EXPECT_EQ(e.errors()[0].field, path);
    EXPECT_THAT(e.errors()[0].message, HasSubstr("line "));
  }
}

}  // namespace
}  // namespace distbench::api
