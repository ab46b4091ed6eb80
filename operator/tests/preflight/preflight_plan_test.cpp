// planPreflight as a table: what the gate does for every state a Workload,
// its policy and its check's run can be in.
#include "distbench/operator/preflight/preflight_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

namespace distbench::op {
namespace {

using ::testing::HasSubstr;

api::DistBenchPreflightPolicy policy() {
  api::DistBenchPreflightPolicy p;
  p.metadata.name = "gate";
  p.spec.template_.spec.benchmark.kind = api::BenchmarkKind::Fabric;
  p.spec.attempts = 3;
  p.spec.retryDelaySeconds = 60;
  p.spec.timeoutSeconds = 300;
  return p;
}

// A Workload with quota reserved, check "fabric" Pending for the first
// time, two nodes assigned and found, no run yet.
PreflightInputs pending() {
  PreflightInputs in;
  in.workload.name = "train";
  in.workload.namespace_ = "team-a";
  in.workload.uid = "u-1";
  in.workload.quotaReserved = true;
  in.workload.checks = {{"fabric", "Pending", "waiting", 0}};
  in.check = "fabric";
  in.assigned.hostnames = {"node-a", "node-b"};
  in.assigned.pods = {1, 1};
  in.nodes = {"node-a", "node-b"};
  return in;
}

CheckRunVerdict verdict(CheckRunOutcome outcome, std::vector<std::string> slowNodes = {}) {
  return {outcome, std::string("summary of ") + toString(outcome), std::move(slowNodes)};
}

struct Row {
  const char* name;
  std::function<void(PreflightInputs&, api::DistBenchPreflightPolicy&)> setUp;
  PreflightStep step;
  const char* state;       // with Answer
  int64_t requeueAfter;    // -1: none
  const char* outcome;     // with Answer
  const char* message;     // a part of the answer's message or the reason
};

const Row kRows[] = {
    {"first look creates the run", [](auto&, auto&) {}, PreflightStep::CreateRun, "", -1, "", ""},
    {"no entry for the check", [](auto& in, auto&) { in.check = "other"; },
     PreflightStep::Ignore, "", -1, "", "no entry for check other"},
    {"already answered", [](auto& in, auto&) { in.workload.checks[0].state = "Ready"; },
     PreflightStep::Ignore, "", -1, "", "is Ready"},
    {"no quota reserved", [](auto& in, auto&) { in.workload.quotaReserved = false; },
     PreflightStep::Ignore, "", -1, "", "no quota reserved"},
    {"evicted mid-check", [](auto& in, auto&) { in.workload.evicted = true; },
     PreflightStep::Ignore, "", -1, "", "evicted"},
    {"deactivated", [](auto& in, auto&) { in.workload.active = false; }, PreflightStep::Ignore,
     "", -1, "", "inactive"},
    {"being deleted", [](auto& in, auto&) { in.workload.deleting = true; },
     PreflightStep::Ignore, "", -1, "", "being deleted"},
    {"finished", [](auto& in, auto&) { in.workload.finished = true; }, PreflightStep::Ignore, "",
     -1, "", "finished"},
    {"policy unusable", [](auto& in, auto&) { in.policy = nullptr; in.policyError = "not found"; },
     PreflightStep::Ignore, "", -1, "", "not found"},
    {"run going", [](auto& in, auto&) { in.run = verdict(CheckRunOutcome::Running); in.runAgeSeconds = 100; },
     PreflightStep::Wait, "", -1, "", ""},
    {"healthy", [](auto& in, auto&) { in.run = verdict(CheckRunOutcome::Healthy); },
     PreflightStep::Answer, "Ready", -1, "Healthy", "passed: summary of Healthy"},
    {"slow, first attempt", [](auto& in, auto&) { in.run = verdict(CheckRunOutcome::Slow, {"node-b"}); },
     PreflightStep::Answer, "Retry", 60, "Slow", "attempt 1 of 3; next in 60 s"},
    {"slow, second attempt doubles the delay",
     [](auto& in, auto&) {
       in.workload.checks[0].retryCount = 1;
       in.run = verdict(CheckRunOutcome::Slow);
     },
     PreflightStep::Answer, "Retry", 120, "Slow", "attempt 2 of 3"},
    {"slow, last attempt",
     [](auto& in, auto&) {
       in.workload.checks[0].retryCount = 2;
       in.run = verdict(CheckRunOutcome::Slow);
     },
     PreflightStep::Answer, "Rejected", -1, "Slow", "attempt 3 of 3: no attempts left"},
    {"attempts lowered below the retries so far",
     [](auto& in, auto& p) {
       in.workload.checks[0].retryCount = 2;
       p.spec.attempts = 1;
     },
     PreflightStep::Answer, "Rejected", -1, "Exhausted", "policy allows 1"},
    {"inconclusive retries by default", [](auto& in, auto&) { in.run = verdict(CheckRunOutcome::Inconclusive); },
     PreflightStep::Answer, "Retry", 60, "Inconclusive", "summary of Inconclusive"},
    {"inconclusive admitted when the policy says so",
     [](auto& in, auto& p) {
       in.run = verdict(CheckRunOutcome::Inconclusive);
       p.spec.inconclusive = api::PreflightInconclusive::Ready;
     },
     PreflightStep::Answer, "Ready", -1, "Inconclusive", "inconclusive: Ready"},
    {"run failed", [](auto& in, auto&) { in.run = verdict(CheckRunOutcome::Failed); },
     PreflightStep::Answer, "Retry", 60, "Failed", "summary of Failed"},
    {"run timed out",
     [](auto& in, auto&) {
       in.run = verdict(CheckRunOutcome::Running);
       in.runAgeSeconds = 300;
     },
     PreflightStep::Answer, "Retry", 60, "TimedOut", "did not finish within 300 s"},
    {"no nodes known: rejected by default",
     [](auto& in, auto&) {
       in.assigned = {{}, {}, "pod set main has no topology assignment"};
       in.nodes.clear();
     },
     PreflightStep::Answer, "Rejected", -1, "Unassigned", "kubernetes.io/hostname"},
    {"no nodes known: admitted unchecked when the policy says so",
     [](auto& in, auto& p) {
       in.assigned = {{}, {}, "pod set main has no topology assignment"};
       in.nodes.clear();
       p.spec.unassigned = api::PreflightUnassigned::Ready;
     },
     PreflightStep::Answer, "Ready", -1, "Unassigned", "admitted unchecked"},
    {"a hostname no node carries",
     [](auto& in, auto&) {
       in.nodes = {"node-a"};
       in.missingHostnames = {"node-b"};
     },
     PreflightStep::Answer, "Retry", 60, "NodesMissing", "kubernetes.io/hostname=node-b"},
    {"one node",
     [](auto& in, auto&) {
       in.assigned.hostnames = {"node-a"};
       in.assigned.pods = {4};
       in.nodes = {"node-a"};
     },
     PreflightStep::Answer, "Ready", -1, "OneNode", "on one node (node-a) unchecked"},
    {"one node holding several pods, a rank per pod",
     [](auto& in, auto& p) {
       in.assigned.hostnames = {"node-a"};
       in.assigned.pods = {4};
       in.nodes = {"node-a"};
       p.spec.ranksPerNode = api::PreflightRanksPerNode::Pods;
     },
     PreflightStep::CreateRun, "", -1, "", ""},
    {"one pod, a rank per pod",
     [](auto& in, auto& p) {
       in.assigned.hostnames = {"node-a"};
       in.assigned.pods = {1};
       in.nodes = {"node-a"};
       p.spec.ranksPerNode = api::PreflightRanksPerNode::Pods;
     },
     PreflightStep::Answer, "Ready", -1, "OneNode", "one pod (on node-a) unchecked"},
    {"more ranks than one check runs, a rank per pod",
     [](auto& in, auto& p) {
       in.assigned.pods = {1000, 25};
       p.spec.ranksPerNode = api::PreflightRanksPerNode::Pods;
     },
     PreflightStep::Answer, "Rejected", -1, "TooLarge", "at most 1024 ranks; this Workload has 1025 pods"},
    {"more nodes than one check runs",
     [](auto& in, auto&) {
       in.assigned.hostnames.clear();
       in.assigned.pods.clear();
       in.nodes.clear();
       for (int i = 0; i < 1025; ++i) {
         in.assigned.hostnames.push_back("node-" + std::to_string(i));
         in.assigned.pods.push_back(1);
       }
       in.nodes = in.assigned.hostnames;
     },
     PreflightStep::Answer, "Rejected", -1, "TooLarge", "at most 1024 ranks; this Workload has 1025 nodes"},
};

TEST(PreflightPlan, Table) {
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.name);
    api::DistBenchPreflightPolicy p = policy();
    PreflightInputs in = pending();
    in.policy = &p;
    row.setUp(in, p);
    const PreflightPlan plan = planPreflight(in);
    EXPECT_EQ(plan.step, row.step);
    if (row.step == PreflightStep::Answer) {
      EXPECT_EQ(plan.answer.state, row.state);
      EXPECT_EQ(plan.outcome, row.outcome);
      EXPECT_THAT(plan.answer.message, HasSubstr(row.message));
      if (row.requeueAfter < 0) {
        EXPECT_FALSE(plan.answer.requeueAfterSeconds.has_value());
      } else {
        EXPECT_EQ(plan.answer.requeueAfterSeconds, row.requeueAfter);
      }
    } else if (row.step == PreflightStep::Ignore) {
      EXPECT_THAT(plan.reason, HasSubstr(row.message));
    }
  }
}

TEST(PreflightPlan, ARankPerPodRepeatsANodeAsOftenAsItsPods) {
  api::DistBenchPreflightPolicy p = policy();
  p.spec.ranksPerNode = api::PreflightRanksPerNode::Pods;
  PreflightInputs in = pending();
  in.policy = &p;
  in.assigned.pods = {3, 2};
  const PreflightPlan plan = planPreflight(in);
  ASSERT_EQ(plan.step, PreflightStep::CreateRun);
  EXPECT_EQ(plan.target.nodes,
            (std::vector<std::string>{"node-a", "node-a", "node-a", "node-b", "node-b"}));
  // A node gone since the assignment is not given ranks: the answer is Retry.
  in.nodes = {"node-b"};
  in.missingHostnames = {"node-a"};
  EXPECT_EQ(planPreflight(in).outcome, "NodesMissing");
}

TEST(PreflightPlan, TheRunIsOnePerAttemptOnTheAssignedNodes) {
  api::DistBenchPreflightPolicy p = policy();
  PreflightInputs in = pending();
  in.policy = &p;
  const PreflightPlan first = planPreflight(in);
  ASSERT_EQ(first.step, PreflightStep::CreateRun);
  EXPECT_EQ(first.target.nodes, (std::vector<std::string>{"node-a", "node-b"}));
  EXPECT_EQ(first.target.attempt, 1);
  EXPECT_EQ(first.target.workloadNamespace, "team-a");
  EXPECT_EQ(first.recheckAfterSeconds, 300);
  in.workload.checks[0].retryCount = 1;
  const PreflightPlan second = planPreflight(in);
  EXPECT_EQ(second.target.attempt, 2);
  EXPECT_NE(api::preflightRunName(first.target), api::preflightRunName(second.target));
}

TEST(PreflightPlan, WaitsNoLongerThanTheTimeout) {
  api::DistBenchPreflightPolicy p = policy();
  PreflightInputs in = pending();
  in.policy = &p;
  in.run = verdict(CheckRunOutcome::Running);
  in.runAgeSeconds = 280;
  EXPECT_EQ(planPreflight(in).recheckAfterSeconds, 20);
}

TEST(PreflightPlan, MarksSlowNodesOnlyWhenThePolicySays) {
  api::DistBenchPreflightPolicy p = policy();
  PreflightInputs in = pending();
  in.policy = &p;
  in.run = verdict(CheckRunOutcome::Slow, {"node-b"});
  EXPECT_TRUE(planPreflight(in).markNodes.empty());
  p.spec.suspectNodes = api::PreflightSuspectNodes::Taint;
  EXPECT_EQ(planPreflight(in).markNodes, std::vector<std::string>{"node-b"});
  in.run = verdict(CheckRunOutcome::Healthy);
  EXPECT_TRUE(planPreflight(in).markNodes.empty());
}

}  // namespace
}  // namespace distbench::op
