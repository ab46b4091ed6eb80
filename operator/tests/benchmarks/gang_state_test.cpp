// Reading pods the way the kubelet and scheduler leave them: phases per
// role, why a pod waits or failed, the master's summary, success rules.
#include "distbench/operator/benchmarks/gang_state.h"

#include <gtest/gtest.h>

#include <vector>

#include "distbench/operator/common/status_conditions.h"

namespace distbench::op {
namespace {

using web::json::value;

value pod(const std::string& name, const std::string& role, int rank, const std::string& status,
          const std::string& created = "2026-11-22T00:00:00Z") {
  value p = value::object();
  p["metadata"]["name"] = value::string(name);
  p["metadata"]["creationTimestamp"] = value::string(created);
  p["metadata"]["labels"]["distbench.io/role"] = value::string(role);
  p["metadata"]["labels"]["distbench.io/rank"] = value::string(std::to_string(rank));
  p["metadata"]["labels"]["distbench.io/gang"] = value::string("2");
  p["status"] = value::parse(status);
  return p;
}

TEST(GangState, CountsPerRoleAndReadiness) {
  const GangState g = gangState({
      pod("b-trainer-1", "trainer", 3, R"({"phase":"Failed"})"),
      pod("b-master-0", "master", 0,
          R"({"phase":"Running","conditions":[{"type":"Ready","status":"True"}]})"),
      pod("b-ps-0", "ps", 1, R"({"phase":"Running","conditions":[{"type":"Ready","status":"False"}]})"),
      pod("b-trainer-0", "trainer", 2, R"({"phase":"Succeeded"})"),
  });
  EXPECT_EQ(g.master.active, 1);
  EXPECT_EQ(g.master.ready, 1);
  EXPECT_EQ(g.parameterServers.active, 1);
  EXPECT_EQ(g.parameterServers.ready, 0);
  EXPECT_EQ(g.trainers.succeeded, 1);
  EXPECT_EQ(g.trainers.failed, 1);
  ASSERT_EQ(g.pods.size(), 4u);
  EXPECT_EQ(g.pods[0].name, "b-master-0");  // rank order
  EXPECT_EQ(g.pods[0].gang, 2);
  ASSERT_EQ(g.failedPods().size(), 1u);
  EXPECT_EQ(g.failedPods()[0]->name, "b-trainer-1");
  EXPECT_FALSE(g.succeeded(2));
  EXPECT_TRUE(g.allStarted(4));
  EXPECT_FALSE(g.allStarted(5));  // one pod not even created
}

TEST(GangState, APodBeingDeletedBeforeItFinishedIsAFailedRankAtOnce) {
  value running = pod("b-trainer-0", "trainer", 2, R"({"phase":"Running"})");
  running["metadata"]["deletionTimestamp"] = value::string("2026-11-22T00:00:05Z");
  value done = pod("b-trainer-1", "trainer", 3, R"({"phase":"Succeeded"})");
  done["metadata"]["deletionTimestamp"] = value::string("2026-11-22T00:00:05Z");
  const GangState g = gangState({running, done, pod("b-master-0", "master", 0, R"({"phase":"Running"})")});
  ASSERT_EQ(g.failedPods().size(), 1u);  // a finished pod's deletion loses nothing
  EXPECT_EQ(g.failedPods()[0]->name, "b-trainer-0");
  EXPECT_NE(g.failedPods()[0]->detail.find("deleted while the gang ran"), std::string::npos);
  EXPECT_EQ(g.trainers.failed, 1);
  EXPECT_EQ(g.trainers.active, 0);
  EXPECT_EQ(g.trainers.succeeded, 1);
}

TEST(GangState, SuccessIsTheMastersAndEveryTrainersNotTheParameterServers) {
  GangState g = gangState({pod("m", "master", 0, R"({"phase":"Succeeded"})"),
                           pod("p", "ps", 1, R"({"phase":"Running"})"),
                           pod("t0", "trainer", 2, R"({"phase":"Succeeded"})"),
                           pod("t1", "trainer", 3, R"({"phase":"Succeeded"})")});
  EXPECT_TRUE(g.succeeded(2));
  EXPECT_FALSE(g.succeeded(3));
  g = gangState({pod("m", "master", 0, R"({"phase":"Running"})"),
                 pod("t0", "trainer", 2, R"({"phase":"Succeeded"})")});
  EXPECT_FALSE(g.succeeded(1));
}

TEST(GangState, FailureDetailNamesExitCodeReasonAndMessage) {
  const PodState s = podState(pod("b-trainer-0", "trainer", 2, R"({"phase":"Failed",
    "containerStatuses":[{"name":"worker","state":{"terminated":{"exitCode":1,"reason":"Error"}}}],
    "message":"boom"})"));
  EXPECT_EQ(s.detail, "exit code 1, Error: boom");
  EXPECT_EQ(s.cause, "");  // the worker's own error: its log says more
  const PodState evicted = podState(pod("x", "trainer", 2,
      R"({"phase":"Failed","reason":"Evicted","message":"The node was low on resource: memory."})"));
  EXPECT_EQ(evicted.detail, "Evicted: The node was low on resource: memory.");
  EXPECT_EQ(describePods({&s, &evicted}),
            "b-trainer-0 (rank 2): exit code 1, Error: boom; x (rank 2): Evicted: The node was low "
            "on resource: memory.");
}

// A failed container's message is the end of its log (FallbackToLogsOnError):
// its last line, the worker's error, goes into the detail, cut to a length an
// event can carry.
TEST(GangState, FailureDetailCarriesTheLastLogLine) {
  const PodState s = podState(pod("b-ps-0", "ps", 1, R"({"phase":"Failed",
    "containerStatuses":[{"name":"worker","state":{"terminated":{"exitCode":1,"reason":"Error",
      "message":"ps0 (rank 1): checked in\nps0 (rank 1): error: lost the master\n\n"}}}]})"));
  EXPECT_EQ(s.detail, "exit code 1, Error (last log line: ps0 (rank 1): error: lost the master)");
  const std::string longLine(300, 'x');
  const PodState cut = podState(pod("b-ps-0", "ps", 1, R"({"phase":"Failed",
    "containerStatuses":[{"name":"worker","state":{"terminated":{"exitCode":1,"reason":"Error",
      "message":")" + longLine + R"("}}}]})"));
  EXPECT_EQ(cut.detail, "exit code 1, Error (last log line: " + longLine.substr(0, 200) + "...)");
}

// LibTorch 2.x names the store keys a timed-out wait was for, and they start
// with the run key; the pod's message is its log's end, readable by anyone
// who may read the DistBenchmark once copied. No part of the key survives,
// not even where the 200-character cut falls inside it.
TEST(GangState, FailureDetailNeverCarriesTheRunKey) {
  const std::string key = "0123456789abcdef0123456789abcdef";
  auto failed = [](const std::string& lastLine) {
    value status = value::parse(R"({"phase":"Failed",
      "containerStatuses":[{"name":"worker","state":{"terminated":{"exitCode":1,"reason":"Error"}}}]})");
    status["containerStatuses"][0]["state"]["terminated"]["message"] =
        value::string("trainer0 (rank 2): checked in\n" + lastLine + "\n");
    value p = pod("b-trainer-0", "trainer", 2, "{}");
    p["status"] = status;
    return podState(p);
  };
  const std::string timeout =
      "distbench-worker trainer0: error: rendezvous: wait timeout after "
      "3000ms, keys: /run-" +
      key + "/global/0/3";
  const PodState whole = failed(timeout);
  // The cut falls 12 characters into the key.
  const std::string prefix(200 - 12 - std::string("error: keys: /run-").size(), 'x');
  const PodState straddling = failed(prefix + "error: keys: /run-" + key + "/global/0/3");
  for (const PodState* s : {&whole, &straddling}) {
    EXPECT_EQ(s->detail.find(key.substr(0, 12)), std::string::npos) << s->detail;
    EXPECT_EQ(s->terminationMessage.find(key.substr(0, 12)), std::string::npos)
        << s->terminationMessage;
    const std::string described = describePods({s});
    EXPECT_EQ(described.find(key.substr(0, 12)), std::string::npos) << described;
  }
  EXPECT_NE(whole.detail.find("keys: /run-<run-key>/global/0/3"), std::string::npos)
      << whole.detail;
}

// The pod as the kubelet and scheduler leave it -> the cause a user can act
// on, and what the detail must carry so they can (the limit, the image, the
// scheduler's words).
struct CauseCase {
  const char* what;
  const char* pod;  // the pod's JSON: spec and status
  std::string cause;
  std::vector<std::string> detailParts;
};

TEST(GangState, CauseIsTheOneKubernetesNames) {
  const std::vector<CauseCase> cases = {
      {"OOM-killed at the container's limit",
       R"({"spec":{"containers":[{"name":"worker","resources":{"limits":{"memory":"24Mi"}}}]},
          "status":{"phase":"Failed","containerStatuses":[{"name":"worker",
            "state":{"terminated":{"exitCode":137,"reason":"OOMKilled"}}}]}})",
       "OOMKilled", {"exit code 137, OOMKilled (memory limit 24Mi)"}},
      {"OOM-killed without a limit of its own",
       R"({"status":{"phase":"Failed","containerStatuses":[{"name":"worker",
            "state":{"terminated":{"exitCode":137,"reason":"OOMKilled"}}}]}})",
       "OOMKilled", {"exit code 137, OOMKilled"}},
      {"evicted, its container read as an ordinary error",
       R"({"status":{"phase":"Failed","reason":"Evicted","message":"low on memory",
            "containerStatuses":[{"name":"worker",
            "state":{"terminated":{"exitCode":137,"reason":"Error"}}}]}})",
       "Evicted", {"Evicted, exit code 137, Error: low on memory"}},
      {"the pod's own activeDeadlineSeconds",
       R"({"status":{"phase":"Failed","reason":"DeadlineExceeded",
            "message":"Pod was active on the node longer than the specified deadline"}})",
       "DeadlineExceeded", {"DeadlineExceeded: Pod was active"}},
      {"an image the node cannot pull",
       R"({"spec":{"containers":[{"name":"worker","image":"reg.example/w:1"}]},
          "status":{"phase":"Pending","containerStatuses":[{"name":"worker","image":"reg.example/w:1",
            "state":{"waiting":{"reason":"ImagePullBackOff","message":"Back-off pulling image \"reg.example/w:1\""}}}]}})",
       "ImagePullBackOff", {"ImagePullBackOff: Back-off pulling image \"reg.example/w:1\""}},
      {"the pull's own error, between back-offs, names the image",
       R"({"spec":{"containers":[{"name":"worker","image":"reg.example/w:1"}]},
          "status":{"phase":"Pending","containerStatuses":[{"name":"worker",
            "state":{"waiting":{"reason":"ErrImagePull","message":"connection refused"}}}]}})",
       "ImagePullBackOff", {"ErrImagePull (image reg.example/w:1): connection refused"}},
      {"pull policy Never and no image",
       R"({"status":{"phase":"Pending","containerStatuses":[{"name":"worker","image":"w:1",
            "state":{"waiting":{"reason":"ErrImageNeverPull","message":"not present"}}}]}})",
       "ErrImageNeverPull", {"ErrImageNeverPull (image w:1): not present"}},
      {"no node fits",
       R"({"status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False",
            "reason":"Unschedulable","message":"0/1 nodes are available: 1 node(s) didn't match node selector."}]}})",
       "Unschedulable", {"Unschedulable: 0/1 nodes are available: 1 node(s) didn't match node selector."}},
      {"being created is no cause",
       R"({"status":{"phase":"Pending","hostIP":"192.0.2.2","containerStatuses":[{"name":"worker",
            "state":{"waiting":{"reason":"ContainerCreating"}}}]}})",
       "", {"starting"}},
      {"an exit of its own is no cause",
       R"({"status":{"phase":"Failed","containerStatuses":[{"name":"worker",
            "state":{"terminated":{"exitCode":1,"reason":"Error"}}}]}})",
       "", {"exit code 1, Error"}},
  };
  for (const CauseCase& c : cases) {
    value p = pod("b-trainer-0", "trainer", 2, "{}");
    const value parsed = value::parse(c.pod);
    if (parsed.has_field("spec")) p["spec"] = parsed.at("spec");
    p["status"] = parsed.at("status");
    const PodState s = podState(p);
    EXPECT_EQ(s.cause, c.cause) << c.what;
    for (const std::string& part : c.detailParts)
      EXPECT_NE(s.detail.find(part), std::string::npos) << c.what << ": " << s.detail;
  }
}

TEST(GangState, APodDeletedWhileRunningHasNoKubernetesCause) {
  value p = pod("b-trainer-0", "trainer", 2, R"({"phase":"Pending",
    "conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable"}]})");
  p["metadata"]["deletionTimestamp"] = value::string("2026-11-22T00:00:05Z");
  EXPECT_EQ(podState(p).cause, "");
}

TEST(GangState, FirstCauseIsInTheOrderGiven) {
  PodState plain, oom, evicted;
  oom.cause = "OOMKilled";
  evicted.cause = "Evicted";
  EXPECT_EQ(firstCause({&plain, &oom, &evicted}), "OOMKilled");
  EXPECT_EQ(firstCause({&plain}), "");
  EXPECT_EQ(firstCause({}), "");
}

TEST(GangState, DescribePodsStaysWithinItsBound) {
  std::vector<PodState> many(100);
  std::vector<const PodState*> ptrs;
  for (int i = 0; i < 100; ++i) {
    many[i].name = "bench-trainer-" + std::to_string(i);
    many[i].rank = i;
    many[i].detail = "Unschedulable: 0/3 nodes are available: 3 Insufficient cpu.";
    ptrs.push_back(&many[i]);
  }
  const std::string text = describePods(ptrs, 300);
  EXPECT_LE(text.size(), 300u + 8);
  EXPECT_NE(text.find("…"), std::string::npos);
}

TEST(GangState, ResultSummaryIsTheTerminationMessageWhenItIsJson) {
  PodState master = podState(pod("m", "master", 0, R"({"phase":"Succeeded",
    "containerStatuses":[{"name":"worker","state":{"terminated":{"exitCode":0,"message":"{\"p50\":\"0.4s\"}"}}}]})"));
  auto summary = resultSummary(master);
  ASSERT_TRUE(summary.has_value());
  EXPECT_EQ(summary->at("p50").as_string(), "0.4s");
  master.terminationMessage = "Traceback: something crashed";  // FallbackToLogsOnError
  EXPECT_FALSE(resultSummary(master).has_value());
}

// A master image that writes a number JSON cannot carry (1e999 reads as
// infinity), an absurd one, or a field of another type than the CRD's: the
// summary is refused, naming the field, rather than copied into a status
// the API server refuses on every retry.
TEST(GangState, AResultSummaryStatusCannotCarryIsRefusedNamingTheField) {
  struct Case {
    const char* message;
    std::string field;
  };
  for (const Case& c :
       std::vector<Case>{{R"({"p50":1e999})", "p50"},
                         {R"({"p50":"0.4s","rows":[{"p95":1},{"p95":-1e999}]})", "rows[1].p95"},
                         {R"({"p50":"0.4s","rows":[{"perSecond":1e300}]})", "rows[0].perSecond"},
                         {R"({"p50":0.4})", "p50"},
                         {R"({"summary":[1]})", "summary"}}) {
    PodState master;
    master.role = "master";
    master.terminationMessage = c.message;
    EXPECT_FALSE(resultSummary(master).has_value()) << c.message;
    std::string problem;
    resultSummary(master, &problem);
    EXPECT_NE(problem.find(c.field + ": "), std::string::npos) << c.message << ": " << problem;
  }
  PodState master;
  master.terminationMessage = R"({"p50":"0.4s","rows":[{"perSecond":null,"p95":1e14}]})";
  std::string problem;
  EXPECT_TRUE(resultSummary(master, &problem).has_value());
  EXPECT_EQ(problem, "");
}

TEST(GangState, StartedAtIsTheEarliestCreation) {
  const GangState g = gangState({pod("a", "master", 0, "{}", "2026-11-22T00:00:05Z"),
                                 pod("b", "trainer", 1, "{}", "2026-11-22T00:00:03Z")});
  EXPECT_EQ(g.startedAt(), "2026-11-22T00:00:03Z");
}

TEST(StatusConditions, TransitionTimeMovesOnlyWhenStatusChanges) {
  value status = value::object();
  EXPECT_TRUE(setCondition(status, kCondRunning, true, "AllRanksStarted", "m", "T1", 1));
  EXPECT_FALSE(setCondition(status, kCondRunning, true, "AllRanksStarted", "m2", "T2", 2));
  const value& c = status.at("conditions").at(0);
  EXPECT_EQ(c.at("lastTransitionTime").as_string(), "T1");
  EXPECT_EQ(c.at("message").as_string(), "m2");
  EXPECT_EQ(c.at("observedGeneration").as_integer(), 2);
  EXPECT_TRUE(conditionIsTrue(status, kCondRunning));
  EXPECT_TRUE(setCondition(status, kCondRunning, false, "Finished", "done", "T3", 2));
  EXPECT_EQ(status.at("conditions").at(0).at("lastTransitionTime").as_string(), "T3");
  EXPECT_FALSE(conditionIsTrue(status, kCondRunning));
  // A new condition that starts False is no transition to report.
  EXPECT_FALSE(setCondition(status, kCondRestarting, false, "GangRunning", "", "T4", 2));
  EXPECT_EQ(status.at("conditions").size(), 2u);
}

// Whatever the reconciler writes to conditions (and, through the same
// statusMessage, status.message and Events): no run key, and the bound
// holds after the redaction.
TEST(StatusConditions, MessagesCarryNoRunKey) {
  const std::string key = "0123456789abcdef0123456789abcdef";
  value status = value::object();
  setCondition(status, "Failed", true, "RankFailed", "keys: /run-" + key + "/global/0/3",
               "2026-11-22T00:00:00Z", 1);
  EXPECT_EQ(status["conditions"][0]["message"].as_string(), "keys: /run-<run-key>/global/0/3");
  // Unredacted, the cut would fall ten characters into the key.
  setCondition(status, "Failed", true, "RankFailed",
               std::string(980, 'x') + " /run-" + key + "/global/0/3" + std::string(40, 'y'),
               "2026-11-22T00:00:00Z", 1);
  const std::string cut = status["conditions"][0]["message"].as_string();
  EXPECT_LE(cut.size(), 1024u);
  EXPECT_EQ(cut.find(key.substr(0, 4)), std::string::npos) << cut;
}

TEST(StatusConditions, TimesRoundTripInRfc3339) {
  const auto t = kube::parseRfc3339("2026-11-22T03:04:05Z");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(kube::formatRfc3339(*t), "2026-11-22T03:04:05Z");
  const auto frac = kube::parseRfc3339("2026-11-22T03:04:05.250000Z");
  ASSERT_TRUE(frac.has_value());
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::milliseconds>(*frac - *t).count(), 250);
  EXPECT_FALSE(kube::parseRfc3339("2026-11-22 03:04:05").has_value());
  EXPECT_FALSE(kube::parseRfc3339("2026-11-22T03:04:05+01:00").has_value());
  EXPECT_FALSE(kube::parseRfc3339("").has_value());
  EXPECT_EQ(kube::formatRfc3339(*frac, 3), "2026-11-22T03:04:05.250Z");
  EXPECT_EQ(kube::formatRfc3339(*frac, 6), "2026-11-22T03:04:05.250000Z");
}

}  // namespace
}  // namespace distbench::op
