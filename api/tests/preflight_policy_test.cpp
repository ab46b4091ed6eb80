// DistBenchPreflightPolicy: parsing (strict, defaults), validation with full
// field paths, the retry backoff, and the run one check makes.
#include "distbench/api/preflight_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "distbench/api/spec_validation.h"

namespace distbench::api {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

const std::string kHeader =
    "apiVersion: distbench.io/v1alpha1\n"
    "kind: DistBenchPreflightPolicy\n"
    "metadata:\n"
    "  name: fabric-gate\n";

// The smallest valid policy: a Fabric template with its defaults.
const std::string kMinimal = kHeader +
                             "spec:\n"
                             "  template:\n"
                             "    spec:\n"
                             "      benchmark:\n"
                             "        kind: Fabric\n";

std::vector<FieldError> parseErrors(const std::string& text) {
  try {
    parseDistBenchPreflightPolicy(text);
  } catch (const SpecError& e) {
    return e.errors();
  }
  return {};
}

std::string errorAt(const std::string& text, const std::string& field) {
  std::string messages;
  for (const FieldError& e : parseErrors(text)) {
    if (e.field == field) messages += e.message + "\n";
  }
  return messages;
}

std::string allErrors(const std::string& text) {
  std::string out;
  for (const FieldError& e : parseErrors(text)) out += e.field + ": " + e.message + "\n";
  return out;
}

PreflightTarget target(int nodes, const std::string& name = "train-llama") {
  PreflightTarget t;
  t.workloadName = name;
  t.workloadNamespace = "team-a";
  t.workloadUid = "5b0c2f8e-8c1e-4a57-9b7e-0d8f1f3c2a11";
  t.checkName = "distbench-fabric";
  t.attempt = 1;
  for (int i = 0; i < nodes; ++i) t.nodes.push_back("gpu-node-" + std::to_string(i));
  return t;
}

TEST(PreflightPolicy, MinimalGetsItsDefaults) {
  const DistBenchPreflightPolicy p = parseDistBenchPreflightPolicy(kMinimal);
  EXPECT_EQ(p.metadata.name, "fabric-gate");
  EXPECT_EQ(p.spec.attempts, 3);
  EXPECT_EQ(p.spec.retryDelaySeconds, 60);
  EXPECT_EQ(p.spec.timeoutSeconds, 900);
  EXPECT_EQ(p.spec.inconclusive, PreflightInconclusive::Retry);
  EXPECT_EQ(p.spec.unassigned, PreflightUnassigned::Reject);
  EXPECT_EQ(p.spec.suspectNodes, PreflightSuspectNodes::None);
  EXPECT_EQ(p.spec.ranksPerNode, PreflightRanksPerNode::One);
  EXPECT_EQ(p.spec.template_.spec.benchmark.kind, BenchmarkKind::Fabric);
}

TEST(PreflightPolicy, ReadsEveryField) {
  const DistBenchPreflightPolicy p = parseDistBenchPreflightPolicy(
      kMinimal +
      "        fabric:\n"
      "          samplesPerPair: 4\n"
      "          thresholdPercent: 30\n"
      "    metadata:\n"
      "      labels: {team: infra}\n"
      "      annotations: {owner: alice}\n"
      "  attempts: 5\n"
      "  retryDelaySeconds: 30\n"
      "  timeoutSeconds: 120\n"
      "  inconclusive: Ready\n"
      "  unassigned: Ready\n"
      "  suspectNodes: Taint\n"
      "  ranksPerNode: Pods\n");
  EXPECT_EQ(p.spec.attempts, 5);
  EXPECT_EQ(p.spec.retryDelaySeconds, 30);
  EXPECT_EQ(p.spec.timeoutSeconds, 120);
  EXPECT_EQ(p.spec.inconclusive, PreflightInconclusive::Ready);
  EXPECT_EQ(p.spec.unassigned, PreflightUnassigned::Ready);
  EXPECT_EQ(p.spec.suspectNodes, PreflightSuspectNodes::Taint);
  EXPECT_EQ(p.spec.ranksPerNode, PreflightRanksPerNode::Pods);
  EXPECT_EQ(p.spec.template_.spec.benchmark.fabric.samplesPerPair, 4);
  EXPECT_EQ(p.spec.template_.spec.benchmark.fabric.thresholdPercent, 30);
  EXPECT_EQ(p.spec.template_.metadata.labels.at("team"), "infra");
  EXPECT_EQ(p.spec.template_.metadata.annotations.at("owner"), "alice");
}

TEST(PreflightPolicy, TemplateIsRequired) {
  EXPECT_EQ(errorAt(kHeader + "spec:\n  attempts: 2\n", "spec.template"), "required\n");
  EXPECT_EQ(errorAt(kHeader, "spec"), "required\n");
}

TEST(PreflightPolicy, BoundsNameTheirField) {
  EXPECT_THAT(errorAt(kMinimal + "  attempts: 0\n", "spec.attempts"), HasSubstr("1..10"));
  EXPECT_THAT(errorAt(kMinimal + "  attempts: 11\n", "spec.attempts"), HasSubstr("1..10"));
  EXPECT_THAT(errorAt(kMinimal + "  retryDelaySeconds: -1\n", "spec.retryDelaySeconds"),
              HasSubstr("0..1800"));
  EXPECT_THAT(errorAt(kMinimal + "  retryDelaySeconds: 1801\n", "spec.retryDelaySeconds"),
              HasSubstr("0..1800"));
  EXPECT_THAT(errorAt(kMinimal + "  timeoutSeconds: 0\n", "spec.timeoutSeconds"),
              HasSubstr("1..86400"));
  EXPECT_THAT(errorAt(kMinimal + "  suspectNodes: Cordon\n", "spec.suspectNodes"),
              HasSubstr("None, Label, Taint"));
  EXPECT_THAT(errorAt(kMinimal + "  inconclusive: Pass\n", "spec.inconclusive"),
              HasSubstr("Retry, Ready"));
  EXPECT_THAT(errorAt(kMinimal + "  unassigned: Allow\n", "spec.unassigned"),
              HasSubstr("Reject, Ready"));
  EXPECT_THAT(errorAt(kMinimal + "  ranksPerNode: Gpus\n", "spec.ranksPerNode"),
              HasSubstr("One, Pods"));
  EXPECT_THAT(errorAt(kMinimal + "  retries: 2\n", "spec.retries"), HasSubstr("unknown field"));
}

TEST(PreflightPolicy, OnlyTheFabricKind) {
  const std::string ddp = kHeader +
                          "spec:\n"
                          "  template:\n"
                          "    spec:\n"
                          "      benchmark:\n"
                          "        kind: DDP\n";
  EXPECT_THAT(errorAt(ddp, "spec.template.spec.benchmark.kind"),
              HasSubstr("must be Fabric"));
}

TEST(PreflightPolicy, TheGateSetsTheNodesAndItsOwnKeys) {
  EXPECT_THAT(errorAt(kMinimal +
                          "        fabric:\n"
                          "          nodes: [a, b]\n",
                      "spec.template.spec.benchmark.fabric.nodes"),
              HasSubstr("set by the gate"));
  EXPECT_THAT(
      errorAt(kMinimal +
                  "    metadata:\n"
                  "      labels: {distbench.io/preflight-attempt: \"1\"}\n",
              "spec.template.metadata.labels.distbench.io/preflight-attempt"),
      HasSubstr("set by the preflight gate on every run"));
  EXPECT_THAT(
      errorAt(kMinimal +
                  "    metadata:\n"
                  "      annotations: {distbench.io/preflight-workload: x}\n",
              "spec.template.metadata.annotations.distbench.io/preflight-workload"),
      HasSubstr("set by the preflight gate on every run"));
}

TEST(PreflightPolicy, TemplateSpecErrorsCarryTheTemplatePath) {
  const std::string text = kMinimal +
                           "        fabric:\n"
                           "          samplesPerPair: 0\n";
  EXPECT_THAT(allErrors(text), HasSubstr("spec.template.spec.benchmark.fabric.samplesPerPair"));
}

TEST(PreflightPolicy, NameMustLabelItsRuns) {
  const std::string text =
      "apiVersion: distbench.io/v1alpha1\n"
      "kind: DistBenchPreflightPolicy\n"
      "metadata:\n"
      "  name: Fabric.Gate\n"
      "spec:\n"
      "  template: {spec: {benchmark: {kind: Fabric}}}\n";
  EXPECT_THAT(errorAt(text, "metadata.name"), HasSubstr("DNS-1123 label"));
}

TEST(PreflightPolicy, RetryDelayDoublesUpToItsBound) {
  PreflightPolicySpec spec;
  spec.retryDelaySeconds = 60;
  EXPECT_EQ(preflightRetryDelaySeconds(spec, 0), 60);
  EXPECT_EQ(preflightRetryDelaySeconds(spec, 1), 120);
  EXPECT_EQ(preflightRetryDelaySeconds(spec, 4), 960);
  EXPECT_EQ(preflightRetryDelaySeconds(spec, 5), 1800);
  EXPECT_EQ(preflightRetryDelaySeconds(spec, 60), 1800);
  spec.retryDelaySeconds = 0;
  EXPECT_EQ(preflightRetryDelaySeconds(spec, 3), 0);
}

TEST(PreflightPolicy, TheRunPinsOneRankPerAssignedNode) {
  const DistBenchPreflightPolicy p = parseDistBenchPreflightPolicy(
      kMinimal +
      "    metadata:\n"
      "      labels: {team: infra}\n");
  const DistBenchmark run = preflightRun(p, target(3));
  EXPECT_EQ(run.metadata.namespace_, "team-a");
  EXPECT_EQ(run.spec.topology.trainers, 3);
  EXPECT_EQ(run.spec.benchmark.fabric.nodes,
            (std::vector<std::string>{"gpu-node-0", "gpu-node-1", "gpu-node-2"}));
  EXPECT_EQ(run.metadata.labels.at("team"), "infra");
  EXPECT_EQ(run.metadata.labels.at(kPreflightWorkloadUidLabel),
            "5b0c2f8e-8c1e-4a57-9b7e-0d8f1f3c2a11");
  EXPECT_EQ(run.metadata.labels.at(kPreflightAttemptLabel), "1");
  EXPECT_EQ(run.metadata.labels.at(kPreflightPolicyLabel), "fabric-gate");
  EXPECT_EQ(run.metadata.annotations.at(kPreflightWorkloadAnnotation), "train-llama");
  EXPECT_THAT(validate(run), IsEmpty());
}

TEST(PreflightPolicy, ARunWithSeveralRanksOnANodeLiftsOnePerNode) {
  const DistBenchPreflightPolicy p = parseDistBenchPreflightPolicy(kMinimal);
  ASSERT_TRUE(p.spec.template_.spec.benchmark.fabric.onePerNode);
  PreflightTarget shared = target(2);
  shared.nodes = {"gpu-node-0", "gpu-node-0", "gpu-node-1"};
  const DistBenchmark run = preflightRun(p, shared);
  EXPECT_EQ(run.spec.topology.trainers, 3);
  EXPECT_EQ(run.spec.benchmark.fabric.nodes, shared.nodes);
  EXPECT_FALSE(run.spec.benchmark.fabric.onePerNode);
  EXPECT_THAT(validate(run), IsEmpty());
  EXPECT_TRUE(preflightRun(p, target(2)).spec.benchmark.fabric.onePerNode);
}

TEST(PreflightPolicy, RunNamesAreOnePerAttemptAndAlwaysValid) {
  const DistBenchPreflightPolicy p = parseDistBenchPreflightPolicy(kMinimal);
  PreflightTarget first = target(2);
  PreflightTarget second = first;
  second.attempt = 2;
  PreflightTarget otherCheck = first;
  otherCheck.checkName = "another-check";
  EXPECT_EQ(preflightRunName(first), preflightRunName(target(2)));
  EXPECT_NE(preflightRunName(first), preflightRunName(second));
  EXPECT_NE(preflightRunName(first), preflightRunName(otherCheck));
  EXPECT_EQ(preflightRunName(first).rfind("train-llama-preflight-", 0), 0u);

  // A Workload's name may be a 253-character DNS subdomain starting with a
  // digit; the run's name is still a valid one at the largest assignment.
  const std::string longName = "7" + std::string(120, 'a') + ".b." + std::string(120, 'c');
  PreflightTarget big = target(kMaxPreflightNodes, longName);
  big.attempt = kMaxPreflightAttempts;
  const DistBenchmark run = preflightRun(p, big);
  EXPECT_EQ(run.metadata.name.front(), 'w');
  EXPECT_THAT(validate(run), IsEmpty());
}

}  // namespace
}  // namespace distbench::api
