// What the operator does for the Fabric kind, without an API server: where
// its ranks go (fabric_placement.h), what its verdict becomes in status and
// Events (fabric_suspects.h), and how a slow node is marked
// (suspect_node_marks.h).
#include <gtest/gtest.h>

#include <set>

#include "distbench/api/presets.h"
#include "distbench/api/worker_env.h"
#include "distbench/operator/benchmarks/desired_objects.h"
#include "distbench/operator/benchmarks/fabric_placement.h"
#include "distbench/operator/benchmarks/fabric_suspects.h"
#include "distbench/operator/benchmarks/suspect_node_marks.h"
#include "distbench/operator/common/operator_flags.h"
#include "distbench/report/fabric_simulate.h"
#include "support/tutorial_benchmark.h"

namespace distbench::op {
namespace {

using web::json::value;

api::DistBenchmark fabricBenchmark(int trainers) {
  api::DistBenchmark b = api::preset("fabric");
  b.metadata.name = "fab";
  b.metadata.namespace_ = "bench";
  b.spec.topology.trainers = trainers;
  return b;
}

const value* envNamed(const value& pod, const std::string& name) {
  for (const value& e : pod.at("spec").at("containers").at(0).at("env").as_array())
    if (e.at("name").as_string() == name) return &e;
  return nullptr;
}

std::string role(const value& pod) {
  return pod.at("metadata").at("labels").at(kLabelRole).as_string();
}

TEST(FabricPlacement, EachTrainerOnANodeOfItsOwnAndToldItsName) {
  const std::vector<value> pods =
      desiredPods(fabricBenchmark(3), kTutorialOwner, "10.0.0.7", 0, ClusterOptions{});
  ASSERT_EQ(pods.size(), 4u);
  for (const value& pod : pods) {
    const value& spec = pod.at("spec");
    if (role(pod) != "trainer") {
      EXPECT_FALSE(spec.has_field("affinity")) << "the master measures nothing";
      EXPECT_EQ(envNamed(pod, api::kEnvNodeName), nullptr);
      continue;
    }
    const value* env = envNamed(pod, api::kEnvNodeName);
    ASSERT_NE(env, nullptr) << pod.serialize();
    EXPECT_EQ(env->at("valueFrom").at("fieldRef").at("fieldPath").as_string(), "spec.nodeName");
    const value& terms = spec.at("affinity")
                             .at("podAntiAffinity")
                             .at("requiredDuringSchedulingIgnoredDuringExecution");
    ASSERT_EQ(terms.size(), 1u);
    EXPECT_EQ(terms.at(0).at("topologyKey").as_string(), "kubernetes.io/hostname");
    const value& match = terms.at(0).at("labelSelector").at("matchLabels");
    EXPECT_EQ(match.at(kLabelRun).as_string(), kTutorialOwner.uid) << "this run's trainers only";
    EXPECT_EQ(match.at(kLabelRole).as_string(), "trainer");
    EXPECT_FALSE(spec.at("affinity").has_field("nodeAffinity")) << "no node list: any node";
  }
}

TEST(FabricPlacement, ANodeListPinsTrainerIToNodeIThroughTheScheduler) {
  api::DistBenchmark b = fabricBenchmark(2);
  b.spec.benchmark.fabric.nodes = {"gpu-a", "gpu-b"};
  const std::vector<value> pods = desiredPods(b, kTutorialOwner, "10.0.0.7", 0, ClusterOptions{});
  std::vector<std::string> pinned;
  for (const value& pod : pods) {
    if (role(pod) != "trainer") continue;
    EXPECT_FALSE(pod.at("spec").has_field("nodeName")) << "the scheduler still checks the node";
    const value& expression = pod.at("spec")
                                  .at("affinity")
                                  .at("nodeAffinity")
                                  .at("requiredDuringSchedulingIgnoredDuringExecution")
                                  .at("nodeSelectorTerms")
                                  .at(0)
                                  .at("matchExpressions")
                                  .at(0);
    EXPECT_EQ(expression.at("key").as_string(), "kubernetes.io/hostname");
    EXPECT_EQ(expression.at("operator").as_string(), "In");
    pinned.push_back(expression.at("values").at(0).as_string());
  }
  EXPECT_EQ(pinned, (std::vector<std::string>{"gpu-a", "gpu-b"}));
}

TEST(FabricPlacement, OnePerNodeFalseLetsOneNodeHoldEveryRank) {
  api::DistBenchmark b = fabricBenchmark(4);
  b.spec.benchmark.fabric.onePerNode = false;
  for (const value& pod : desiredPods(b, kTutorialOwner, "10.0.0.7", 0, ClusterOptions{})) {
    EXPECT_FALSE(pod.at("spec").has_field("affinity")) << pod.serialize();
    if (role(pod) == "trainer") {
      EXPECT_NE(envNamed(pod, api::kEnvNodeName), nullptr);
    }
  }
}

TEST(FabricPlacement, OtherKindsAreLeftAsTheyWere) {
  for (const value& pod :
       desiredPods(tutorialBenchmark(), kTutorialOwner, "10.0.0.7", 0, ClusterOptions{})) {
    EXPECT_FALSE(pod.at("spec").has_field("affinity"));
    EXPECT_EQ(envNamed(pod, api::kEnvNodeName), nullptr);
  }
}

// A Fabric report of `world`, every pair measured, node i on "node-<i>".
report::Report fabricReport(report::FabricWorld world) {
  report::FabricMeasurements m = report::measureAllPairs(world);
  for (size_t i = 0; i < m.nodes.size(); ++i) m.nodes[i].node = "node-" + std::to_string(i);
  report::Report r;
  r.kind = "Fabric";
  r.resultsJson = "{\"fabric\":" + report::fabricToJson(m) + "}";
  return r;
}

report::FabricWorld world(int n, uint64_t seed) {
  report::FabricWorld w;
  w.nodes = report::fabricNodes(n);
  w.seed = seed;
  return w;
}

std::set<std::string> reasons(const FabricOutcome& o) {
  std::set<std::string> out;
  for (const kube::StatusEvent& e : o.events)
    out.insert((e.warning ? "Warning " : "Normal ") + e.reason);
  return out;
}

TEST(FabricSuspects, ASlowNodeIsNamedByItsKubernetesNodeAndMarkable) {
  report::FabricWorld w = world(6, 3);
  w.nodeFactor[2] = 0.25;
  const FabricOutcome o = fabricOutcome(fabricReport(w), 25);
  const value& s = o.status;
  EXPECT_EQ(s.at("pairsMeasured").as_integer(), 15);
  EXPECT_EQ(s.at("pairsTotal").as_integer(), 15);
  EXPECT_EQ(s.at("line").at("source").as_string(), "group");
  ASSERT_EQ(s.at("suspects").size(), 1u) << s.serialize();
  const value& suspect = s.at("suspects").at(0);
  EXPECT_EQ(suspect.at("what").as_string(), "node");
  EXPECT_EQ(suspect.at("status").as_string(), "Slow");
  EXPECT_EQ(suspect.at("nodes").at(0).as_string(), "node-2");
  EXPECT_LT(suspect.at("estimate").at("high").as_double(), suspect.at("line").as_double());
  EXPECT_EQ(reasons(o), (std::set<std::string>{"Warning SuspectNode"}));
  ASSERT_EQ(o.marks.size(), 1u);
  EXPECT_EQ(o.marks[0].node, "node-2");
  EXPECT_EQ(o.marks[0].what, "node");
}

TEST(FabricSuspects, ASlowLinkIsNamedButNoNodeIsMarked) {
  report::FabricWorld w = world(6, 4);
  w.pairFactor[{1, 4}] = 0.25;
  const FabricOutcome o = fabricOutcome(fabricReport(w), 25);
  ASSERT_EQ(o.status.at("suspects").size(), 1u) << o.status.serialize();
  const value& suspect = o.status.at("suspects").at(0);
  EXPECT_EQ(suspect.at("what").as_string(), "link");
  EXPECT_EQ(suspect.at("nodes").size(), 2u);
  EXPECT_EQ(reasons(o), (std::set<std::string>{"Warning SuspectLink"}));
  EXPECT_TRUE(o.marks.empty()) << "both ends are fine elsewhere";
}

TEST(FabricSuspects, AHealthyFabricSaysSoOnce) {
  const FabricOutcome o = fabricOutcome(fabricReport(world(6, 5)), 25);
  EXPECT_EQ(o.status.at("suspects").size(), 0u) << o.status.serialize();
  EXPECT_EQ(reasons(o), (std::set<std::string>{"Normal FabricHealthy"}));
  EXPECT_TRUE(o.marks.empty());
}

TEST(FabricSuspects, ABaselineBecomesTheLine) {
  report::FabricWorld fast = world(4, 6);
  const report::FabricMeasurements baseline = report::measureAllPairs(fast);
  report::FabricWorld slower = world(4, 7);
  slower.bandwidth = fast.bandwidth / 2;  // every link at half the baseline's
  const FabricOutcome o = fabricOutcome(fabricReport(slower), 25, &baseline);
  EXPECT_EQ(o.status.at("line").at("source").as_string(), "baseline");
  EXPECT_NEAR(o.status.at("line").at("bandwidthBytesPerSecond").as_double(), fast.bandwidth,
              fast.bandwidth * 0.2);
  EXPECT_GT(o.status.at("suspects").size(), 0u) << "against the baseline, the whole group is slow";
}

TEST(FabricSuspects, AReportWithoutMeasurementsIsRefusedByField) {
  report::Report r;
  r.kind = "Fabric";
  r.resultsJson = "{}";
  EXPECT_THROW(fabricOutcome(r, 25), report::ReportError);
}

value nodeObject(const std::string& labelValue, bool tainted) {
  value node = value::object();
  node["metadata"]["name"] = value::string("node-2");
  node["metadata"]["resourceVersion"] = value::string("41");
  if (!labelValue.empty()) node["metadata"]["labels"][kSuspectNodeKey] = value::string(labelValue);
  value other = value::object();
  other["key"] = value::string("gpu");
  other["effect"] = value::string("NoSchedule");
  std::vector<value> taints{other};
  if (tainted) {
    value ours = value::object();
    ours["key"] = value::string(kSuspectNodeKey);
    ours["effect"] = value::string("NoSchedule");
    taints.push_back(ours);
  }
  node["spec"]["taints"] = value::array(taints);
  return node;
}

TEST(SuspectNodeMarks, ALabelOrATaintBesideTheNodesOwnAndWhoSaidSo) {
  const SuspectNodeMark mark{"node-2", "node", "links slow with 5 of 5 peers"};
  const auto label =
      suspectNodePatch(nodeObject("", false), mark, SuspectNodeAction::Label, "b/fab");
  ASSERT_TRUE(label);
  EXPECT_EQ(label->at("metadata").at("labels").at(kSuspectNodeKey).as_string(), "node");
  EXPECT_FALSE(label->has_field("spec"));
  EXPECT_NE(label->at("metadata")
                .at("annotations")
                .at(kSuspectByAnnotation)
                .as_string()
                .find("b/fab: links slow"),
            std::string::npos);

  const auto taint =
      suspectNodePatch(nodeObject("", false), mark, SuspectNodeAction::Taint, "b/fab");
  ASSERT_TRUE(taint);
  const value& taints = taint->at("spec").at("taints");
  ASSERT_EQ(taints.size(), 2u) << "the node's own taint is kept";
  EXPECT_EQ(taints.at(0).at("key").as_string(), "gpu");
  EXPECT_EQ(taints.at(1).at("key").as_string(), kSuspectNodeKey);
  EXPECT_EQ(taints.at(1).at("effect").as_string(), "NoSchedule");
  EXPECT_EQ(taint->at("metadata").at("resourceVersion").as_string(), "41")
      << "the list is replaced only over the version it was read from";
}

TEST(SuspectNodeMarks, NothingToWriteWhenMarkedOrAskedForNothing) {
  const SuspectNodeMark mark{"node-2", "node", "slow"};
  EXPECT_FALSE(suspectNodePatch(nodeObject("node", false), mark, SuspectNodeAction::Label, "b/f"));
  EXPECT_FALSE(suspectNodePatch(nodeObject("", true), mark, SuspectNodeAction::Taint, "b/f"));
  EXPECT_FALSE(suspectNodePatch(nodeObject("", false), mark, SuspectNodeAction::None, "b/f"));
  EXPECT_TRUE(suspectNodePatch(nodeObject("compute", false), mark, SuspectNodeAction::Label, "b/f"))
      << "another finding is written over";
}

TEST(SuspectNodeMarks, TheFlagTakesThreeValuesAndNamesItselfOtherwise) {
  EXPECT_EQ(parseOperatorFlags({}).suspectNodes, "none");
  EXPECT_EQ(parseOperatorFlags({"--suspect-nodes=taint"}).suspectNodes, "taint");
  EXPECT_EQ(parseSuspectNodeAction("label"), SuspectNodeAction::Label);
  EXPECT_EQ(parseSuspectNodeAction("cordon"), std::nullopt);
  try {
    parseOperatorFlags({"--suspect-nodes", "cordon"});
    FAIL() << "accepted --suspect-nodes cordon";
  } catch (const FlagError& e) {
    EXPECT_NE(std::string(e.what()).find("--suspect-nodes"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace distbench::op
