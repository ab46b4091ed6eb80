// What one reconcile does with a live run's gang, row by row, without an
// API server: the pods observed, the plan made of them.
#include "distbench/operator/benchmarks/gang_plan.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "distbench/operator/common/ownership.h"
#include "support/tutorial_benchmark.h"

namespace distbench::op {
namespace {

using web::json::value;
using Action = GangDecision::Action;

const kube::SystemTime kNow = kube::parseRfc3339("2026-11-22T00:01:00Z").value();

// The tutorial's pods of gang `gang` (master, ps0, trainer0, trainer1) as
// the operator would create them.
std::vector<value> gangPods(int gang) {
  return desiredPods(tutorialBenchmark(), kTutorialOwner, "10.0.0.7", gang, ClusterOptions{});
}

value withPhase(value pod, const std::string& phase) {
  pod["metadata"]["creationTimestamp"] = value::string("2026-11-22T00:00:00Z");
  pod["status"]["phase"] = value::string(phase);
  return pod;
}

std::vector<value> allInPhase(std::vector<value> pods, const std::string& phase) {
  for (value& p : pods) p = withPhase(p, phase);
  return pods;
}

std::vector<std::string> names(const std::vector<value>& pods) {
  std::vector<std::string> out;
  for (const value& p : pods) out.push_back(objectName(p));
  return out;
}

struct Row {
  const char* what;
  int gang;
  bool running;
  std::function<std::vector<value>()> pods;  // observed
  std::vector<std::string> stale;
  std::vector<std::string> create;
  std::string lost;  // a substring, "" for none
  Action action;
};

TEST(GangPlan, EachObservationHasOnePlan) {
  const std::vector<Row> rows = {
      {"nothing yet: create the whole gang and wait for it",
       0,
       false,
       [] { return std::vector<value>{}; },
       {},
       {"tut-master-0", "tut-ps-0", "tut-trainer-0", "tut-trainer-1"},
       "",
       Action::Wait},
      {"every rank running: nothing to create, the run is on",
       0,
       false,
       [] { return allInPhase(gangPods(0), "Running"); },
       {},
       {},
       "",
       Action::Run},
      {"one pod missing before the gang ran: create it alone",
       0,
       false,
       [] {
         auto pods = allInPhase(gangPods(0), "Pending");
         pods.pop_back();
         return pods;
       },
       {},
       {"tut-trainer-1"},
       "",
       Action::Wait},
      {"one pod gone from a running gang: a lost rank, not recreated",
       0,
       true,
       [] {
         auto pods = allInPhase(gangPods(0), "Running");
         pods.erase(pods.begin() + 2);
         return pods;
       },
       {},
       {},
       "tut-trainer-0: deleted while the gang ran",
       Action::Restart},
      {"the old gang's pods: deleted first, nothing else",
       1,
       false,
       [] {
         auto pods = allInPhase(gangPods(0), "Failed");
         pods.push_back(withPhase(gangPods(1)[0], "Pending"));
         return pods;
       },
       {"tut-master-0", "tut-ps-0", "tut-trainer-0", "tut-trainer-1"},
       {},
       "",
       Action::Keep},
      {"a same-named earlier resource's pods: deleted first",
       0,
       false,
       [] {
         auto pods = allInPhase(gangPods(0), "Running");
         for (value& p : pods)
           p["metadata"]["ownerReferences"][0]["uid"] = value::string("old-uid");
         return pods;
       },
       {"tut-master-0", "tut-ps-0", "tut-trainer-0", "tut-trainer-1"},
       {},
       "",
       Action::Keep},
      {"master and trainers succeeded: the run succeeded",
       0,
       true,
       [] {
         auto pods = allInPhase(gangPods(0), "Succeeded");
         pods[1] = withPhase(pods[1], "Running");  // ps0 serves until told to stop
         return pods;
       },
       {},
       {},
       "",
       Action::Succeed},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.what);
    GangObservation observed;
    observed.uid = kTutorialOwner.uid;
    observed.gang = row.gang;
    observed.running = row.running;
    observed.pods = row.pods();
    observed.desired = gangPods(row.gang);
    const GangPlan plan = planGang(observed, tutorialBenchmark().spec, kNow);
    EXPECT_EQ(names(plan.stale), row.stale);
    EXPECT_EQ(names(plan.create), row.create);
    if (row.lost.empty()) {
      EXPECT_EQ(plan.lost, "");
    } else {
      EXPECT_NE(plan.lost.find(row.lost), std::string::npos) << plan.lost;
    }
    EXPECT_EQ(plan.decision.action, row.action) << plan.decision.message;
    if (plan.stale.empty()) {
      // Created pods count as this gang's, Pending until they are seen.
      EXPECT_EQ(plan.current.size() + (row.running ? 1u : 0u) * (row.lost.empty() ? 0u : 1u),
                observed.desired.size());
    } else {
      EXPECT_TRUE(plan.current.empty());
    }
  }
}

}  // namespace
}  // namespace distbench::op
