// A finished run's reconcile as tables: which stage a reconcile is in,
// whether the report is stored, what clean-up removes by cleanPodPolicy,
// the counts, the TTL; and which pods a delete removes, with what grace.
// No API server.
#include "distbench/operator/benchmarks/run_finish.h"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace distbench::op {
namespace {

using namespace std::chrono_literals;
using web::json::value;
using Ttl = FinishPlan::Ttl;

const kube::SystemTime kNow = kube::SystemTime(std::chrono::seconds(1795651200));

TEST(RunFinishTest, StageTable) {
  struct Case {
    bool specValid;
    std::string phase;
    RunStage want;
  };
  const std::vector<Case> cases = {
      {true, "", RunStage::Live},
      {true, "Pending", RunStage::Live},
      {true, "Running", RunStage::Live},
      {true, "Succeeded", RunStage::Finished},
      {true, "Failed", RunStage::Finished},
      {false, "", RunStage::RefuseSpec},
      {false, "Running", RunStage::RefuseSpec},
      // Edited into an invalid spec after it succeeded: it fails for that.
      {false, "Succeeded", RunStage::RefuseSpec},
      // Already Failed (for its spec or before): finished, cleaned up.
      {false, "Failed", RunStage::Finished},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.specValid) + " " + c.phase);
    EXPECT_EQ(runStage(c.specValid, c.phase), c.want);
  }
}

TEST(RunFinishTest, CleanUpByPolicy) {
  struct Case {
    api::CleanPodPolicy policy;
    bool pods, onlyUnfinished, services, networkPolicy, configMap, runKey;
  };
  const std::vector<Case> cases = {
      {api::CleanPodPolicy::None, false, false, false, false, false, false},
      {api::CleanPodPolicy::Running, true, true, true, true, false, false},
      {api::CleanPodPolicy::All, true, false, true, true, true, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(static_cast<int>(c.policy));
    const CleanUpPlan p = planCleanUp(c.policy);
    EXPECT_EQ(p.pods, c.pods);
    EXPECT_EQ(p.onlyUnfinishedPods, c.onlyUnfinished);
    EXPECT_EQ(p.services, c.services);
    EXPECT_EQ(p.networkPolicy, c.networkPolicy);
    EXPECT_EQ(p.configMap, c.configMap);
    EXPECT_EQ(p.runKey, c.runKey);
  }
}

TEST(RunFinishTest, FinishTable) {
  struct Case {
    std::string name;
    bool succeeded, specValid, reportStored;
    api::CleanPodPolicy policy;
    std::optional<int64_t> ttlSeconds;
    std::chrono::seconds finishedAgo;
    // The plan.
    bool storeReport, zeroActiveCounts;
    Ttl ttl;
    std::chrono::milliseconds ttlLeft;
  };
  const auto running = api::CleanPodPolicy::Running;
  const std::vector<Case> cases = {
      {"SucceededStoresItsReportFirst", true, true, false, running, std::nullopt, 0s, true, true,
       Ttl::Keep, 0ms},
      {"AStoredReportIsNotStoredAgain", true, true, true, running, std::nullopt, 0s, false, true,
       Ttl::Keep, 0ms},
      {"AFailedRunHasNoReportToStore", false, true, false, running, std::nullopt, 0s, false, true,
       Ttl::Keep, 0ms},
      {"AnInvalidSpecHasNoReportToStore", true, false, false, running, std::nullopt, 0s, false,
       true, Ttl::Keep, 0ms},
      {"CleanPodPolicyNoneKeepsTheCounts", false, true, false, api::CleanPodPolicy::None,
       std::nullopt, 0s, false, false, Ttl::Keep, 0ms},
      // A second past the expiry (run_policy.h), so the look comes after it.
      {"WithinTheTtlWaitsForTheRest", false, true, false, running, 60, 10s, false, true, Ttl::Wait,
       51s},
      {"PastTheTtlDeletes", false, true, false, running, 60, 60s, false, true, Ttl::Delete, 0ms},
      {"ATtlOfZeroDeletesAtOnce", true, true, true, api::CleanPodPolicy::All, 0, 0s, false, true,
       Ttl::Delete, 0ms},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    FinishFacts f;
    f.succeeded = c.succeeded;
    f.specValid = c.specValid;
    f.reportStored = c.reportStored;
    f.policy.cleanPodPolicy = c.policy;
    f.policy.ttlSecondsAfterFinished = c.ttlSeconds;
    f.completion = kNow - c.finishedAgo;
    f.now = kNow;
    const FinishPlan p = planFinish(f);
    EXPECT_EQ(p.storeReport, c.storeReport);
    EXPECT_EQ(p.zeroActiveCounts, c.zeroActiveCounts);
    EXPECT_EQ(p.ttl, c.ttl);
    EXPECT_EQ(p.ttlLeft, c.ttlLeft);
    EXPECT_EQ(p.cleanUp.pods, c.policy != api::CleanPodPolicy::None);
  }
}

value pod(const std::string& name, const std::string& phase, bool deleting) {
  value p = value::object();
  p["metadata"]["name"] = value::string(name);
  p["metadata"]["namespace"] = value::string("bench");
  p["metadata"]["uid"] = value::string("u-" + name);
  if (deleting) p["metadata"]["deletionTimestamp"] = value::string("2026-11-26T00:00:00Z");
  p["status"]["phase"] = value::string(phase);
  return p;
}

TEST(RunFinishTest, PodDeletesTable) {
  const std::vector<value> pods = {
      pod("running", "Running", false),     pod("pending", "Pending", false),
      pod("succeeded", "Succeeded", false), pod("failed", "Failed", false),
      pod("going", "Running", true),        pod("exited", "Failed", true),
  };
  struct Want {
    std::string name;
    std::optional<int64_t> grace;
  };
  struct Case {
    bool onlyUnfinished;
    std::vector<Want> want;
  };
  const std::vector<Case> cases = {
      // Every pod not yet going, by its own grace; an exited one going, at once.
      {false,
       {{"running", std::nullopt},
        {"pending", std::nullopt},
        {"succeeded", std::nullopt},
        {"failed", std::nullopt},
        {"exited", 0}}},
      // The finished ones stay (cleanPodPolicy Running), but one already
      // going and exited is still removed at once.
      {true, {{"running", std::nullopt}, {"pending", std::nullopt}, {"exited", 0}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.onlyUnfinished);
    const auto deletes = planPodDeletes(pods, c.onlyUnfinished);
    ASSERT_EQ(deletes.size(), c.want.size());
    for (std::size_t i = 0; i < deletes.size(); ++i) {
      EXPECT_EQ(deletes[i].first, "/api/v1/namespaces/bench/pods/" + c.want[i].name);
      EXPECT_EQ(deletes[i].second.gracePeriodSeconds, c.want[i].grace);
      EXPECT_EQ(deletes[i].second.uid, "u-" + c.want[i].name);
    }
  }
}

}  // namespace
}  // namespace distbench::op
