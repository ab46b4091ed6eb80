// The run policy's rules, table-driven and without an API server: backoff,
// deadlines, rendezvous timeout, create refusals, TTL. The same rules
// against a real API server: controller_test.cpp, controller_safety_test.cpp.
#include "distbench/operator/benchmarks/run_policy.h"

#include <gtest/gtest.h>

#include <vector>

#include "distbench/operator/common/status_conditions.h"

namespace distbench::op {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using web::json::value;
using Action = GangDecision::Action;

const kube::SystemTime kT0 = *kube::parseRfc3339("2026-11-22T00:00:00Z");

// A gang pod with `phase` (and optionally being deleted), created at kT0.
value pod(const std::string& role, int rank, const std::string& phase, bool deleting = false) {
  value p = value::object();
  const std::string name = "b-" + role + "-" + std::to_string(rank);
  p["metadata"]["name"] = value::string(name);
  p["metadata"]["creationTimestamp"] = value::string("2026-11-22T00:00:00Z");
  p["metadata"]["labels"]["distbench.io/role"] = value::string(role);
  p["metadata"]["labels"]["distbench.io/rank"] = value::string(std::to_string(rank));
  p["metadata"]["labels"]["distbench.io/gang"] = value::string("0");
  if (deleting) p["metadata"]["deletionTimestamp"] = value::string("2026-11-22T00:00:05Z");
  p["status"]["phase"] = value::string(phase);
  return p;
}

// master, one parameter server, two trainers, with the given phases.
GangState gang(const std::string& master, const std::string& ps, const std::string& t0,
               const std::string& t1, bool t0Deleting = false) {
  std::vector<value> pods = {pod("master", 0, master), pod("ps", 1, ps),
                             pod("trainer", 2, t0, t0Deleting)};
  if (!t1.empty()) pods.push_back(pod("trainer", 3, t1));
  return gangState(pods);
}

struct GangCase {
  const char* what;
  GangState pods;
  int gangNumber;
  bool running;
  std::string lost;
  int backoffLimit;
  seconds elapsed;  // since the pods were created
  Action action;
  std::string reason;
  std::string messagePart;
};

TEST(RunPolicy, DecideGangTable) {
  const std::vector<GangCase> cases = {
      {"all ranks succeeded", gang("Succeeded", "Running", "Succeeded", "Succeeded"), 0, true,
       "", 3, seconds(9), Action::Succeed, "", "master and 2 trainers succeeded"},
      {"PS outcome does not matter", gang("Succeeded", "Failed", "Succeeded", "Succeeded"), 0,
       true, "", 3, seconds(9), Action::Succeed, "", "succeeded"},
      {"a failed trainer restarts the gang", gang("Running", "Running", "Failed", "Running"), 0,
       true, "", 3, seconds(9), Action::Restart, "RankFailed",
       "restarting the gang (restart 1 of 3)"},
      {"at the backoff limit the run fails", gang("Running", "Running", "Failed", "Running"), 3,
       true, "", 3, seconds(9), Action::Fail, kCondBackoffLimitExceeded,
       "backoffLimit 3 reached"},
      {"backoffLimit 0 fails at the first failure",
       gang("Running", "Running", "Failed", "Running"), 0, true, "", 0, seconds(9), Action::Fail,
       kCondBackoffLimitExceeded, "backoffLimit 0 reached"},
      {"a pod being deleted while running is a failed rank",
       gang("Running", "Running", "Running", "Running", true), 0, true, "", 3, seconds(9),
       Action::Restart, "RankFailed", "b-trainer-2"},
      {"a pod gone while the gang ran is a failed rank",
       gang("Running", "Running", "Running", ""), 1, true,
       "b-trainer-3: deleted while the gang ran", 3, seconds(9), Action::Restart, "RankFailed",
       "b-trainer-3: deleted while the gang ran; restarting the gang (restart 2 of 3)"},
      {"every rank started", gang("Running", "Running", "Running", "Running"), 0, false, "", 3,
       seconds(9), Action::Run, "AllRanksStarted", "all 4 ranks started"},
      {"a finished rank counts as started", gang("Running", "Running", "Succeeded", "Running"),
       0, false, "", 3, seconds(9), Action::Run, "AllRanksStarted", "all 4 ranks started"},
      {"waiting within the rendezvous timeout", gang("Running", "Running", "Pending", "Running"),
       0, false, "", 3, seconds(9), Action::Wait, "", "3 of 4 ranks started; waiting for"},
      {"past the rendezvous timeout", gang("Running", "Pending", "Pending", "Running"), 0, false,
       "", 3, seconds(61), Action::Fail, kCondRendezvousTimeout,
       "2 of 4 ranks not started within rendezvousTimeoutSeconds (60 s)"},
      {"a running gang stays Running", gang("Running", "Running", "Running", "Running"), 0, true, "",
       3, seconds(9), Action::Run, "AllRanksStarted", ""},
  };
  for (const GangCase& c : cases) {
    api::RunPolicy policy;
    policy.backoffLimit = c.backoffLimit;
    GangFacts facts;
    facts.gang = c.gangNumber;
    facts.ranks = 4;
    facts.trainers = 2;
    facts.running = c.running;
    facts.lost = c.lost;
    const GangDecision d = decideGang(c.pods, facts, policy, 60, kT0 + c.elapsed);
    EXPECT_EQ(d.action, c.action) << c.what;
    EXPECT_EQ(d.reason, c.reason) << c.what;
    EXPECT_NE(d.message.find(c.messagePart), std::string::npos) << c.what << ": " << d.message;
  }
}

// A pod of the gang as the kubelet or the scheduler left it.
value podWithStatus(const std::string& role, int rank, const std::string& status) {
  value p = pod(role, rank, "Pending");
  p["status"] = value::parse(status);
  return p;
}

const char* kOomKilled = R"({"phase":"Failed","containerStatuses":[{"name":"worker",
  "state":{"terminated":{"exitCode":137,"reason":"OOMKilled"}}}]})";
const char* kPeerError = R"({"phase":"Failed","containerStatuses":[{"name":"worker",
  "state":{"terminated":{"exitCode":1,"reason":"Error"}}}]})";
const char* kEvicted = R"({"phase":"Failed","reason":"Evicted","message":"low on memory"})";
const char* kImagePull = R"({"phase":"Pending","containerStatuses":[{"name":"worker",
  "image":"w:missing","state":{"waiting":{"reason":"ErrImagePull","message":"not found"}}}]})";
const char* kUnschedulable = R"({"phase":"Pending","conditions":[{"type":"PodScheduled",
  "status":"False","reason":"Unschedulable","message":"0/1 nodes are available"}]})";
const char* kRunning = R"({"phase":"Running"})";
// The worker's exit code 2: a refusal, which would be the same in any gang.
const char* kRefused = R"({"phase":"Failed","containerStatuses":[{"name":"worker",
  "state":{"terminated":{"exitCode":2,"reason":"Error","message":"distbench-worker trainer0: trainer0 (rank 2) cannot run: spec.runtime.device: cuda, but trainer0 sees no GPU\n"}}}]})";
// A peer that ended on the refusal's verdict.
const char* kRefusalEcho = R"({"phase":"Failed","containerStatuses":[{"name":"worker",
  "state":{"terminated":{"exitCode":2,"reason":"Error","message":"distbench-worker master: error: trainer0 (rank 2) cannot run: spec.runtime.device: cuda\n"}}}]})";
const char* kOomKilledExitTwo = R"({"phase":"Failed","containerStatuses":[{"name":"worker",
  "state":{"terminated":{"exitCode":2,"reason":"OOMKilled"}}}]})";

// The Failed reason is the cause Kubernetes names, whichever rank has it;
// the rule that ended the run stays a condition of its own.
TEST(RunPolicy, TheReasonIsTheCauseKubernetesNames) {
  struct Case {
    const char* what;
    std::vector<value> pods;
    int gang;
    bool running;
    int64_t elapsed;
    Action action;
    std::string reason, condition, messagePart;
  };
  const std::vector<Case> cases = {
      {"OOM-killed trainer, its peers failed after it",
       {podWithStatus("master", 0, kPeerError), podWithStatus("ps", 1, kPeerError),
        podWithStatus("trainer", 2, kPeerError), podWithStatus("trainer", 3, kOomKilled)},
       1, true, 9, Action::Fail, "OOMKilled", kCondBackoffLimitExceeded,
       "b-trainer-3 (rank 3): exit code 137, OOMKilled"},
      {"evicted parameter server",
       {podWithStatus("master", 0, kRunning), podWithStatus("ps", 1, kEvicted),
        podWithStatus("trainer", 2, kRunning), podWithStatus("trainer", 3, kRunning)},
       1, true, 9, Action::Fail, "Evicted", kCondBackoffLimitExceeded, "Evicted: low on memory"},
      {"the restart names the cause too",
       {podWithStatus("master", 0, kRunning), podWithStatus("ps", 1, kRunning),
        podWithStatus("trainer", 2, kOomKilled), podWithStatus("trainer", 3, kRunning)},
       0, true, 9, Action::Restart, "OOMKilled", "", "restarting the gang"},
      {"an ordinary error keeps the rule's name",
       {podWithStatus("master", 0, kRunning), podWithStatus("ps", 1, kPeerError),
        podWithStatus("trainer", 2, kRunning), podWithStatus("trainer", 3, kRunning)},
       1, true, 9, Action::Fail, kCondBackoffLimitExceeded, kCondBackoffLimitExceeded,
       "backoffLimit 1 reached"},
      {"the master gave up waiting for a trainer that cannot pull its image",
       {podWithStatus("master", 0, kPeerError), podWithStatus("ps", 1, kRunning),
        podWithStatus("trainer", 2, kImagePull), podWithStatus("trainer", 3, kRunning)},
       1, false, 20, Action::Fail, "ImagePullBackOff", kCondBackoffLimitExceeded,
       "b-master-0 (rank 0): exit code 1, Error"},
      {"an image that cannot be pulled, at the rendezvous timeout",
       {podWithStatus("master", 0, kRunning), podWithStatus("ps", 1, kImagePull),
        podWithStatus("trainer", 2, kRunning), podWithStatus("trainer", 3, kRunning)},
       0, false, 61, Action::Fail, "ImagePullBackOff", kCondRendezvousTimeout,
       "ErrImagePull (image w:missing): not found"},
      {"no node for a trainer, at the rendezvous timeout",
       {podWithStatus("master", 0, kRunning), podWithStatus("ps", 1, kRunning),
        podWithStatus("trainer", 2, kRunning), podWithStatus("trainer", 3, kUnschedulable)},
       0, false, 61, Action::Fail, "Unschedulable", kCondRendezvousTimeout,
       "Unschedulable: 0/1 nodes are available"},
      {"a refused trainer fails the run at once, whatever its peers said",
       {podWithStatus("master", 0, kPeerError), podWithStatus("ps", 1, kRunning),
        podWithStatus("trainer", 2, kRefused), podWithStatus("trainer", 3, kRunning)},
       0, true, 9, Action::Fail, kCondRankRefused, kCondRankRefused,
       "b-trainer-2 (rank 2): exit code 2, Error (last log line: distbench-worker trainer0: "
       "trainer0 (rank 2) cannot run: spec.runtime.device: cuda"},
      {"a peer that ended on the refusal is a refusal too",
       {podWithStatus("master", 0, kRefusalEcho), podWithStatus("ps", 1, kRunning),
        podWithStatus("trainer", 2, kRunning), podWithStatus("trainer", 3, kRunning)},
       0, true, 9, Action::Fail, kCondRankRefused, kCondRankRefused,
       "b-master-0 (rank 0): exit code 2, Error (last log line: distbench-worker master: error: "
       "trainer0 (rank 2) cannot run"},
      {"exit code 1 still restarts the gang",
       {podWithStatus("master", 0, kRunning), podWithStatus("ps", 1, kRunning),
        podWithStatus("trainer", 2, kPeerError), podWithStatus("trainer", 3, kRunning)},
       0, true, 9, Action::Restart, "RankFailed", "", "restarting the gang (restart 1 of 1)"},
      {"OOM-killed with exit code 2 is OOMKilled",
       {podWithStatus("master", 0, kRunning), podWithStatus("ps", 1, kRunning),
        podWithStatus("trainer", 2, kOomKilledExitTwo), podWithStatus("trainer", 3, kRunning)},
       0, true, 9, Action::Restart, "OOMKilled", "", "restarting the gang"},
      {"slow to start is a plain timeout",
       {podWithStatus("master", 0, kRunning), podWithStatus("ps", 1, R"({"phase":"Pending"})"),
        podWithStatus("trainer", 2, kRunning), podWithStatus("trainer", 3, kRunning)},
       0, false, 61, Action::Fail, kCondRendezvousTimeout, kCondRendezvousTimeout,
       "not scheduled yet"},
  };
  for (const Case& c : cases) {
    api::RunPolicy policy;
    policy.backoffLimit = 1;
    GangFacts facts;
    facts.gang = c.gang;
    facts.ranks = 4;
    facts.trainers = 2;
    facts.running = c.running;
    const GangDecision d =
        decideGang(gangState(c.pods), facts, policy, 60, kT0 + seconds(c.elapsed));
    EXPECT_EQ(d.action, c.action) << c.what;
    EXPECT_EQ(d.reason, c.reason) << c.what;
    EXPECT_EQ(d.condition, c.condition) << c.what;
    EXPECT_NE(d.message.find(c.messagePart), std::string::npos) << c.what << ": " << d.message;
  }
}

TEST(RunPolicy, AWaitingGangWakesWhenTheRendezvousTimeoutFires) {
  GangFacts facts;
  facts.ranks = 4;
  facts.trainers = 2;
  const GangDecision d = decideGang(gang("Running", "Pending", "Running", "Running"), facts,
                                    api::RunPolicy{}, 60, kT0 + seconds(20));
  ASSERT_EQ(d.action, Action::Wait);
  EXPECT_EQ(d.wakeIn, milliseconds(41000));  // 40 s left, and a second for whole seconds
}

TEST(RunPolicy, RunningGangWithAPendingPodIsLeftAlone) {
  // Running was decided when all had started; a pod read as Pending later
  // (a stale cache) neither times out nor demotes the phase.
  GangFacts facts;
  facts.ranks = 4;
  facts.trainers = 2;
  facts.running = true;
  const GangDecision d = decideGang(gang("Running", "Pending", "Running", "Running"), facts,
                                    api::RunPolicy{}, 60, kT0 + seconds(600));
  EXPECT_EQ(d.action, Action::Keep);
}

TEST(RunPolicy, ActiveDeadline) {
  api::RunPolicy policy;
  EXPECT_FALSE(activeDeadline(policy, kT0, kT0 + seconds(1'000'000)).endsRun());
  EXPECT_EQ(activeDeadline(policy, kT0, kT0).wakeIn, milliseconds(0));
  policy.activeDeadlineSeconds = 30;
  const Verdict before = activeDeadline(policy, kT0, kT0 + seconds(10));
  EXPECT_FALSE(before.endsRun());
  EXPECT_EQ(before.wakeIn, milliseconds(21000));
  const Verdict at = activeDeadline(policy, kT0, kT0 + seconds(30));
  EXPECT_EQ(at.reason, kCondDeadlineExceeded);
  EXPECT_EQ(at.message, "ran longer than activeDeadlineSeconds (30 s)");
  // A deadline of a billion years is capped, not overflowed into the past.
  policy.activeDeadlineSeconds = INT64_MAX;
  EXPECT_FALSE(activeDeadline(policy, kT0, kT0 + seconds(10)).endsRun());
}

TEST(RunPolicy, SpecChangedOnlyAfterThePodsWereCreated) {
  EXPECT_FALSE(specChanged(0, 5).endsRun());  // no pods yet: the new spec is used
  EXPECT_FALSE(specChanged(5, 5).endsRun());
  const Verdict v = specChanged(2, 3);
  EXPECT_EQ(v.reason, "SpecChanged");
  EXPECT_NE(v.message.find("generation 2 to 3"), std::string::npos) << v.message;
}

TEST(RunPolicy, CreateRefusedIsBoundedAndPolledBetweenHalfAndFiveSeconds) {
  const Verdict early = createRefused("no", kT0, seconds(60), kT0 + seconds(1));
  EXPECT_FALSE(early.endsRun());
  EXPECT_EQ(early.wakeIn, milliseconds(5000));
  const Verdict late = createRefused("no", kT0, seconds(60), kT0 + milliseconds(59900));
  EXPECT_EQ(late.wakeIn, milliseconds(500));
  const Verdict over = createRefused("no", kT0, seconds(60), kT0 + seconds(60));
  EXPECT_EQ(over.reason, "CreateFailed");
  EXPECT_EQ(over.message, "no (still refused after 60 s)");
}

TEST(RunPolicy, TtlAfterFinished) {
  api::RunPolicy policy;
  EXPECT_FALSE(ttlLeft(policy, kT0, kT0 + seconds(100)));
  policy.ttlSecondsAfterFinished = 0;
  EXPECT_EQ(ttlLeft(policy, kT0, kT0), milliseconds(0));
  policy.ttlSecondsAfterFinished = 30;
  EXPECT_EQ(ttlLeft(policy, kT0, kT0 + seconds(10)), milliseconds(21000));
  EXPECT_EQ(ttlLeft(policy, kT0, kT0 + seconds(30)), milliseconds(0));
}

}  // namespace
}  // namespace distbench::op
