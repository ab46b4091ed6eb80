// Reading a Kueue v1beta1 Workload and writing the gate's answer into it:
// the guard before every write, the nodes of a topology assignment (and why
// they are unknown), and the merge patch of status.admissionChecks.
#include "distbench/operator/preflight/kueue_workload.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace distbench::op {
namespace {

using ::testing::HasSubstr;
using web::json::value;

value workload(const std::string& checksJson, const std::string& conditionsJson,
               const std::string& admissionJson = "null", const std::string& extraMeta = "") {
  return value::parse(
      R"({"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"Workload",
          "metadata":{"name":"train","namespace":"team-a","uid":"u-1","resourceVersion":"42")" +
      extraMeta + R"(},
          "spec":{"active":true,"podSets":[{"name":"main","count":2}]},
          "status":{"conditions":)" +
      conditionsJson + R"(,"admission":)" + admissionJson + R"(,"admissionChecks":)" +
      checksJson + "}}");
}

const std::string kReserved = R"([{"type":"QuotaReserved","status":"True"}])";
const std::string kPending =
    R"([{"name":"other","state":"Ready","message":"fine","lastTransitionTime":"2026-11-28T10:00:00Z"},
        {"name":"fabric","state":"Pending","message":"waiting","retryCount":1,
         "lastTransitionTime":"2026-11-28T10:00:00Z",
         "podSetUpdates":[{"name":"main","labels":{"a":"b"}}]}])";

std::string hostAssignment(const std::string& podSet, const std::vector<std::string>& hosts) {
  std::string domains;
  for (const std::string& h : hosts) {
    domains += (domains.empty() ? "" : ",") + std::string(R"({"values":[")") + h + R"("],"count":1})";
  }
  return R"({"name":")" + podSet + R"(","count":)" + std::to_string(hosts.size()) +
         R"(,"topologyAssignment":{"levels":["kubernetes.io/hostname"],"domains":[)" + domains +
         "]}}";
}

TEST(KueueWorkload, ReadsWhatTheGateNeeds) {
  const WorkloadView w = readWorkload(workload(kPending, kReserved));
  EXPECT_EQ(w.name, "train");
  EXPECT_EQ(w.namespace_, "team-a");
  EXPECT_EQ(w.uid, "u-1");
  EXPECT_EQ(w.resourceVersion, "42");
  EXPECT_TRUE(w.active);
  EXPECT_TRUE(w.quotaReserved);
  EXPECT_FALSE(w.evicted);
  ASSERT_EQ(w.checks.size(), 2u);
  EXPECT_EQ(w.checks[1].name, "fabric");
  EXPECT_EQ(w.checks[1].state, "Pending");
  EXPECT_EQ(w.checks[1].retryCount, 1);
  EXPECT_EQ(w.checks[0].retryCount, 0);
}

TEST(KueueWorkload, AnswersOnlyAPendingCheckOfAReservedLiveWorkload) {
  EXPECT_TRUE(mayAnswer(readWorkload(workload(kPending, kReserved)), "fabric"));
  EXPECT_FALSE(mayAnswer(readWorkload(workload(kPending, kReserved)), "other"));  // Ready
  EXPECT_FALSE(mayAnswer(readWorkload(workload(kPending, kReserved)), "absent"));
  EXPECT_FALSE(mayAnswer(readWorkload(workload(kPending, "[]")), "fabric"));
  EXPECT_FALSE(mayAnswer(
      readWorkload(workload(kPending, R"([{"type":"QuotaReserved","status":"False"}])")), "fabric"));
  EXPECT_FALSE(mayAnswer(readWorkload(workload(kPending, R"([{"type":"QuotaReserved","status":"True"},
                                                     {"type":"Evicted","status":"True"}])")),
                         "fabric"));
  EXPECT_FALSE(mayAnswer(readWorkload(workload(kPending, R"([{"type":"QuotaReserved","status":"True"},
                                                     {"type":"Finished","status":"True"}])")),
                         "fabric"));
  EXPECT_FALSE(mayAnswer(
      readWorkload(workload(kPending, kReserved, "null", R"(,"deletionTimestamp":"2026-11-28T10:00:00Z")")),
      "fabric"));
  value inactive = workload(kPending, kReserved);
  inactive["spec"]["active"] = value::boolean(false);
  EXPECT_FALSE(mayAnswer(readWorkload(inactive), "fabric"));
}

TEST(KueueWorkload, HostnameAssignmentsNameTheNodesInOrderOnce) {
  const value w = workload(kPending, kReserved,
                           R"({"clusterQueue":"gpu","podSetAssignments":[)" +
                               hostAssignment("launcher", {"node-b"}) + "," +
                               hostAssignment("workers", {"node-a", "node-b", "node-c"}) + "]}");
  const AssignedNodes nodes = assignedNodes(w);
  EXPECT_EQ(nodes.unknown, "");
  EXPECT_EQ(nodes.hostnames, (std::vector<std::string>{"node-b", "node-a", "node-c"}));
  EXPECT_EQ(nodes.pods, (std::vector<int64_t>{2, 1, 1}));
}

TEST(KueueWorkload, PodsPerNodeAreTheDomainsCountsSummedOverPodSets) {
  const std::string shaped =
      R"({"clusterQueue":"gpu","podSetAssignments":[{"name":"workers","count":12,
          "topologyAssignment":{"levels":["kubernetes.io/hostname"],
          "domains":[{"values":["gpu-a"],"count":8},{"values":["gpu-b"],"count":4}]}},)" +
      hostAssignment("launcher", {"gpu-b"}) + "]}";
  const AssignedNodes nodes = assignedNodes(workload(kPending, kReserved, shaped));
  EXPECT_EQ(nodes.hostnames, (std::vector<std::string>{"gpu-a", "gpu-b"}));
  EXPECT_EQ(nodes.pods, (std::vector<int64_t>{8, 5}));
  const std::string uncounted =
      R"({"clusterQueue":"gpu","podSetAssignments":[{"name":"main","count":2,
          "topologyAssignment":{"levels":["kubernetes.io/hostname"],
          "domains":[{"values":["gpu-a"]}]}}]})";
  const AssignedNodes bad = assignedNodes(workload(kPending, kReserved, uncounted));
  EXPECT_TRUE(bad.hostnames.empty());
  EXPECT_TRUE(bad.pods.empty());
  EXPECT_THAT(bad.unknown, HasSubstr("the domain gpu-a has no pod count"));
}

TEST(KueueWorkload, SaysWhyTheNodesAreUnknown) {
  EXPECT_THAT(assignedNodes(workload(kPending, kReserved)).unknown, HasSubstr("no admission"));
  const std::string rack =
      R"({"clusterQueue":"gpu","podSetAssignments":[{"name":"main","count":2,
          "topologyAssignment":{"levels":["cloud.example.com/block","cloud.example.com/rack"],
          "domains":[{"values":["b1","r1"],"count":2}]}}]})";
  const AssignedNodes racked = assignedNodes(workload(kPending, kReserved, rack));
  EXPECT_TRUE(racked.hostnames.empty());
  EXPECT_THAT(racked.unknown, HasSubstr("lowest topology level is cloud.example.com/rack"));
  const std::string noTas =
      R"({"clusterQueue":"gpu","podSetAssignments":[{"name":"main","count":2,"flavors":{"cpu":"default"}}]})";
  EXPECT_THAT(assignedNodes(workload(kPending, kReserved, noTas)).unknown,
              HasSubstr("topology-aware scheduling is off"));
  const std::string delayed =
      R"({"clusterQueue":"gpu","podSetAssignments":[{"name":"main","count":2,"delayedTopologyRequest":"Pending"}]})";
  EXPECT_THAT(assignedNodes(workload(kPending, kReserved, delayed)).unknown,
              HasSubstr("only after the admission checks"));
  // One pod set without nodes makes the whole set unknown: the gate would
  // check only some of the Workload's nodes.
  const std::string mixed = R"({"clusterQueue":"gpu","podSetAssignments":[)" +
                            hostAssignment("workers", {"node-a", "node-b"}) +
                            R"(,{"name":"launcher","count":1}]})";
  const AssignedNodes partly = assignedNodes(workload(kPending, kReserved, mixed));
  EXPECT_TRUE(partly.hostnames.empty());
  EXPECT_THAT(partly.unknown, HasSubstr("launcher"));
}

TEST(KueueWorkload, TheAnswerPatchCarriesTheWholeListAndTheResourceVersion) {
  const value w = workload(kPending, kReserved);
  const value patch = checkAnswerPatch(w, "fabric", {"Retry", "node-c slow", 120},
                                       "2026-11-28T11:00:00Z");
  EXPECT_EQ(patch.at("metadata").at("resourceVersion").as_string(), "42");
  const auto& list = patch.at("status").at("admissionChecks").as_array();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list.at(0), w.at("status").at("admissionChecks").at(0));  // the other check, as read
  const value& mine = list.at(1);
  EXPECT_EQ(mine.at("state").as_string(), "Retry");
  EXPECT_EQ(mine.at("message").as_string(), "node-c slow");
  EXPECT_EQ(mine.at("lastTransitionTime").as_string(), "2026-11-28T11:00:00Z");
  EXPECT_EQ(mine.at("requeueAfterSeconds").as_integer(), 120);
  EXPECT_EQ(mine.at("retryCount").as_integer(), 1);  // Kueue's, kept
  EXPECT_EQ(mine.at("podSetUpdates"), w.at("status").at("admissionChecks").at(1).at("podSetUpdates"));
}

TEST(KueueWorkload, TheTransitionTimeMovesOnlyWithTheState) {
  value w = workload(kPending, kReserved);
  w["status"]["admissionChecks"][1]["requeueAfterSeconds"] = value::number(60);
  const value same = checkAnswerPatch(w, "fabric", {"Pending", "", std::nullopt},
                                      "2026-11-28T11:00:00Z");
  const value& mine = same.at("status").at("admissionChecks").at(1);
  EXPECT_EQ(mine.at("lastTransitionTime").as_string(), "2026-11-28T10:00:00Z");
  EXPECT_FALSE(mine.has_field("requeueAfterSeconds"));
  EXPECT_EQ(mine.at("message").as_string(), "Pending");  // never an empty string
}

}  // namespace
}  // namespace distbench::op
