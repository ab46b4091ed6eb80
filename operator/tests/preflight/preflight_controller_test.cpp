// The preflight gate against a real API server with Kueue v0.15.8's CRDs:
// the AdmissionCheck's Active condition, and a Workload's check through
// Ready, Retry (with its requeue delay and a suspect node tainted) and
// Rejected; a check that cannot know its nodes; a Workload evicted or
// deleted mid-check (nothing written, the run deleted); a gate restarted
// mid-check (the same run, not a second). Kueue's part is played by
// KueueHarness; the DistBenchmark controller's by the test, which writes
// the check run's status as that controller writes it (fabricOutcome of a
// simulated fabric report).
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "distbench/api/preflight_policy.h"
#include "distbench/kube/json_fields.h"
#include "support/preflight_gate_test.h"

namespace distbench::op {
namespace {

using web::json::value;
using namespace std::chrono_literals;
using kubetest::eventually;
using PreflightControllerTest = PreflightGateTest;

TEST_F(PreflightControllerTest, TheCheckIsActiveWhileItsPolicyCanBeUsed) {
  kueue_->createAdmissionCheck(check_, api::kPreflightControllerName, policy_);
  start();
  ASSERT_TRUE(eventually([&] { return activeStatus() == "False/PolicyNotFound"; }))
      << activeStatus();
  createPolicy();
  ASSERT_TRUE(eventually([&] { return activeStatus() == "True/Active"; })) << activeStatus();
  client_->remove(policiesPath() + "/" + policy_);
  EXPECT_TRUE(eventually([&] { return activeStatus() == "False/PolicyNotFound"; }))
      << activeStatus();
}

TEST_F(PreflightControllerTest, AnotherControllersCheckIsLeftAlone) {
  kueue_->createAdmissionCheck(check_, "kueue.x-k8s.io/provisioning-request", "");
  createPolicy();
  start();
  kueue_->createWorkload("train", 4, {check_});
  kueue_->reserveQuota("train", hosts_);
  std::this_thread::sleep_for(2s);  // nothing to wait for: nothing may happen
  EXPECT_EQ(activeStatus(), "");
  EXPECT_EQ(state("train"), "Pending");
  EXPECT_TRUE(runNames().empty());
}

TEST_F(PreflightControllerTest, AHealthyFabricIsReadyAndTheWorkloadAdmitted) {
  kueue_->createAdmissionCheck(check_, api::kPreflightControllerName, policy_);
  createPolicy();
  start();
  kueue_->createWorkload("train", 4, {check_});
  // Pending before its quota is reserved: nothing runs yet.
  std::this_thread::sleep_for(1s);
  EXPECT_TRUE(runNames().empty());
  kueue_->reserveQuota("train", hosts_);
  const std::string run = onlyRun();
  const value object = client_->get(runsPath() + "/" + run);
  EXPECT_EQ(object.at("spec").at("benchmark").at("fabric").at("nodes").serialize(),
            value::array({value::string(hosts_[0]), value::string(hosts_[1]),
                          value::string(hosts_[2]), value::string(hosts_[3])})
                .serialize());
  EXPECT_EQ(object.at("spec").at("topology").at("trainers").as_integer(), 4);
  const value& owner = object.at("metadata").at("ownerReferences").at(0);
  EXPECT_EQ(owner.at("kind").as_string(), "Workload");
  EXPECT_EQ(owner.at("uid").as_string(), kube::metadataField(kueue_->get("train"), "uid"));
  EXPECT_EQ(state("train"), "Pending") << "no answer before the run's";

  finishRun(run, -1);
  ASSERT_TRUE(eventually([&] { return state("train") == "Ready"; })) << message("train");
  EXPECT_NE(message("train").find("healthy: 4 nodes"), std::string::npos) << message("train");
  EXPECT_TRUE(eventually([&] { return runNames().empty(); })) << "the run is deleted";
  EXPECT_EQ(kueue_->step("train"), "Admitted");
  EXPECT_EQ(answers(1), std::vector<std::string>{"Ready/Healthy"});
  std::lock_guard<std::mutex> lock(mutex_);
  EXPECT_TRUE(errors_.empty()) << errors_.front();
}

TEST_F(PreflightControllerTest, ASlowNodeRetriesThenRejectsAndIsTainted) {
  kueue_->createAdmissionCheck(check_, api::kPreflightControllerName, policy_);
  createPolicy("  suspectNodes: Taint\n");
  start();
  kueue_->createWorkload("train", 4, {check_});
  kueue_->reserveQuota("train", hosts_);
  const std::string first = onlyRun();
  finishRun(first, 2);
  ASSERT_TRUE(eventually([&] { return state("train") == "Retry"; })) << message("train");
  const value retry = kueue_->checkState("train", check_);
  EXPECT_EQ(retry.at("requeueAfterSeconds").as_integer(), 30);
  EXPECT_NE(message("train").find(hosts_[2]), std::string::npos) << message("train");
  EXPECT_NE(message("train").find("attempt 1 of 2"), std::string::npos) << message("train");
  EXPECT_TRUE(eventually([&] { return nodeTainted(hosts_[2]); }));
  EXPECT_FALSE(nodeTainted(hosts_[0]));

  // Kueue evicts, resets the check (retryCount 1) and reserves again.
  EXPECT_EQ(kueue_->step("train"), "Evicted");
  kueue_->reserveQuota("train", hosts_);
  std::string second;
  ASSERT_TRUE(eventually([&] {
    const std::vector<std::string> names = runNames();
    return names.size() == 1 && (second = names.front()) != first;
  })) << "a second attempt's run";
  finishRun(second, 2);
  ASSERT_TRUE(eventually([&] { return state("train") == "Rejected"; })) << message("train");
  EXPECT_NE(message("train").find("no attempts left"), std::string::npos) << message("train");
  EXPECT_EQ(kueue_->step("train"), "Deactivated");
  EXPECT_TRUE(eventually([&] { return runNames().empty(); }));
  EXPECT_EQ(answers(2), (std::vector<std::string>{"Retry/Slow", "Rejected/Slow"}));
}

TEST_F(PreflightControllerTest, WithoutNodeNamesTheCheckSaysWhyAndRejects) {
  kueue_->createAdmissionCheck(check_, api::kPreflightControllerName, policy_);
  createPolicy();
  start();
  kueue_->createWorkload("train", 4, {check_});
  kueue_->reserveQuota("train", std::nullopt);
  ASSERT_TRUE(eventually([&] { return state("train") == "Rejected"; })) << message("train");
  EXPECT_NE(message("train").find("topology-aware scheduling is off"), std::string::npos)
      << message("train");
  EXPECT_TRUE(runNames().empty());
}

TEST_F(PreflightControllerTest, ARunThatNeverEndsIsAFailedCheckAtItsTimeout) {
  kueue_->createAdmissionCheck(check_, api::kPreflightControllerName, policy_);
  createPolicy("  timeoutSeconds: 2\n");
  start();
  kueue_->createWorkload("train", 4, {check_});
  kueue_->reserveQuota("train", hosts_);
  onlyRun();  // and nothing plays its pods: it never finishes
  ASSERT_TRUE(eventually([&] { return state("train") == "Retry"; }, 30s)) << message("train");
  EXPECT_NE(message("train").find("did not finish within 2 s"), std::string::npos)
      << message("train");
  EXPECT_TRUE(eventually([&] { return runNames().empty(); })) << "the run is deleted";
  EXPECT_EQ(answers(1), std::vector<std::string>{"Retry/TimedOut"});
}

TEST_F(PreflightControllerTest, AWorkloadEvictedMidCheckGetsNoAnswerAndLosesItsRun) {
  kueue_->createAdmissionCheck(check_, api::kPreflightControllerName, policy_);
  kueue_->createAdmissionCheck(check_ + "-other", "example.com/other", "");
  createPolicy();
  start();
  kueue_->createWorkload("train", 4, {check_, check_ + "-other"});
  kueue_->reserveQuota("train", hosts_);
  const std::string run = onlyRun();
  // Another check fails: Kueue evicts the Workload while ours is running.
  {
    value w = kueue_->get("train");
    for (value& c : w["status"]["admissionChecks"].as_array()) {
      if (kube::stringField(c, "name") == check_ + "-other") {
        c["state"] = value::string("Retry");
        c["message"] = value::string("the other check failed");
      }
    }
    client_->replace(kueue_->path("train") + "/status", w);
  }
  EXPECT_EQ(kueue_->step("train"), "Evicted");
  EXPECT_TRUE(eventually([&] { return runNames().empty(); })) << "the run " << run << " is deleted";
  std::this_thread::sleep_for(1s);
  EXPECT_EQ(state("train"), "Pending") << "no answer on an evicted Workload";
  removeQuietly(checksPath() + "/" + check_ + "-other");
  std::lock_guard<std::mutex> lock(mutex_);
  EXPECT_TRUE(answers_.empty());
}

TEST_F(PreflightControllerTest, AWorkloadDeletedMidCheckLeavesNothing) {
  kueue_->createAdmissionCheck(check_, api::kPreflightControllerName, policy_);
  createPolicy();
  start();
  kueue_->createWorkload("train", 4, {check_});
  kueue_->reserveQuota("train", hosts_);
  onlyRun();
  client_->remove(kueue_->path("train"));
  // The gate deletes the run of a Workload that is gone itself, whether or
  // not a garbage collector runs (the test cluster starts one only on
  // request).
  EXPECT_TRUE(eventually([&] { return runNames().empty(); })) << "the run is deleted";
  std::lock_guard<std::mutex> lock(mutex_);
  EXPECT_TRUE(answers_.empty());
}

TEST_F(PreflightControllerTest, ARestartedGateFindsItsRunAndAnswersOnce) {
  kueue_->createAdmissionCheck(check_, api::kPreflightControllerName, policy_);
  createPolicy();
  start();
  kueue_->createWorkload("train", 4, {check_});
  kueue_->reserveQuota("train", hosts_);
  const std::string run = onlyRun();
  const std::string uid = kube::metadataField(client_->get(runsPath() + "/" + run), "uid");
  stop();
  start();
  std::this_thread::sleep_for(1s);
  ASSERT_EQ(runNames(), std::vector<std::string>{run});
  EXPECT_EQ(kube::metadataField(client_->get(runsPath() + "/" + run), "uid"), uid)
      << "the same run, not a second";
  finishRun(run, -1);
  ASSERT_TRUE(eventually([&] { return state("train") == "Ready"; })) << message("train");
}

}  // namespace
}  // namespace distbench::op
