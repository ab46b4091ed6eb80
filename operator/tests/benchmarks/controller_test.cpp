// The controller against a real kube-apiserver, playing the kubelet's part
// by writing pod status through the API (as envtest-based operators are
// tested): children appear wired for rendezvous; the phase follows the
// pods; a failed rank restarts the gang up to backoffLimit; deadlines,
// rendezvous timeouts, TTL and deletion; an API server restart mid-run; an
// operator restarted mid-run, which writes nothing that is already right.
#include <algorithm>
#include <fstream>
#include <iterator>

#include "distbench/api/object_names.h"
#include "distbench/kube/kube_config.h"
#include "distbench/testing/kube/audit_log.h"
#include "distbench/testing/kube/control_plane_outage.h"
#include "support/controller_test_fixture.h"
#include "support/fake_kubelet.h"

namespace distbench::op {
namespace {

TEST_F(ControllerTest, CreatesEveryChildWiredForRendezvous) {
  startController();
  const value created = createBenchmark("wired");
  const std::string uid = created.at("metadata").at("uid").as_string();
  ASSERT_TRUE(eventually([&] { return podsAre("wired", 4); })) << podsOf("wired").size();

  const value masterSvc = client_->get(kube::corePath(ns_, "services", "wired-master"));
  const std::string clusterIP = str(masterSvc, {"spec", "clusterIP"});
  ASSERT_FALSE(clusterIP.empty());
  const value headless = client_->get(kube::corePath(ns_, "services", "wired-workers"));
  EXPECT_EQ(str(headless, {"spec", "clusterIP"}), "None");
  EXPECT_TRUE(headless.at("spec").at("publishNotReadyAddresses").as_bool());
  const value cm = client_->get(kube::corePath(ns_, "configmaps", "wired-config"));
  EXPECT_NE(cm.at("data").at("config.yaml").as_string().find("trainers: 2"), std::string::npos);

  for (const value& obj : {masterSvc, headless, cm}) {
    const value& ref = obj.at("metadata").at("ownerReferences").at(0);
    EXPECT_EQ(ref.at("uid").as_string(), uid);
    EXPECT_TRUE(ref.at("controller").as_bool());
    EXPECT_EQ(str(obj, {"metadata", "labels", kLabelBenchmark}), "wired");
  }
  std::map<std::string, value> pods;
  for (const value& p : podsOf("wired")) pods[p.at("metadata").at("name").as_string()] = p;
  ASSERT_EQ(pods.count("wired-master-0"), 1u);
  ASSERT_EQ(pods.count("wired-ps-0"), 1u);
  ASSERT_EQ(pods.count("wired-trainer-1"), 1u);
  const value& trainer = pods["wired-trainer-1"];
  EXPECT_EQ(str(trainer, {"metadata", "labels", kLabelRole}), "trainer");
  EXPECT_EQ(str(trainer, {"metadata", "labels", kLabelRank}), "3");
  EXPECT_EQ(str(trainer, {"metadata", "labels", kLabelGang}), "0");
  EXPECT_EQ(trainer.at("metadata").at("ownerReferences").at(0).at("uid").as_string(), uid);
  EXPECT_EQ(str(trainer, {"spec", "hostname"}), "wired-trainer-1");
  EXPECT_EQ(str(trainer, {"spec", "subdomain"}), "wired-workers");
  std::map<std::string, std::string> env;
  bool podIpFromDownwardApi = false;
  for (const value& e : trainer.at("spec").at("containers").at(0).at("env").as_array()) {
    if (e.has_field("value")) env[e.at("name").as_string()] = e.at("value").as_string();
    if (e.at("name").as_string() == "POD_IP")
      podIpFromDownwardApi = str(e, {"valueFrom", "fieldRef", "fieldPath"}) == "status.podIP";
  }
  EXPECT_EQ(env["MASTER_ADDR"], clusterIP);
  EXPECT_EQ(env["MASTER_PORT"], "29500");
  EXPECT_EQ(env["RANK"], "3");
  EXPECT_EQ(env["WORLD_SIZE"], "4");
  EXPECT_TRUE(podIpFromDownwardApi);

  ASSERT_TRUE(benchmarkWhere("wired", [](const value& b) {
    return str(b, {"status", "phase"}) == "Pending" && conditionTrue(b, "Created") &&
           !str(b, {"status", "startTime"}).empty() && str(b, {"status", "trainers", "active"}) == "2";
  })) << last_.serialize();
  EXPECT_EQ(str(last_, {"status", "observedGeneration"}), str(last_, {"metadata", "generation"}));
  EXPECT_TRUE(eventually([&] { return sawEvent("Normal PodsCreated"); }));
}

// A CUDA run as the API server stores its pods: the trainers' GPU limits and
// requests pass its validation (extended resources must be equal in both),
// the other roles have none, and every pod runs the CUDA default image.
TEST_F(ControllerTest, CudaTrainersAskTheApiServerForTheirGpus) {
  startController();
  value gpus = value::object();
  gpus["runtime"]["device"] = value::string("cuda");
  gpus["runtime"]["gpusPerRank"] = value::number(2);
  gpus["podTemplates"]["trainer"]["nodeSelector"]["nvidia.com/gpu.present"] = value::string("true");
  createBenchmark("gpus", gpus);
  ASSERT_TRUE(eventually([&] { return podsAre("gpus", 4); })) << podsOf("gpus").size();
  int trainers = 0;
  for (const value& pod : podsOf("gpus")) {
    const std::string name = str(pod, {"metadata", "name"});
    SCOPED_TRACE(name);
    const value& c = pod.at("spec").at("containers").at(0);
    EXPECT_EQ(str(c, {"image"}), defaultCudaWorkerImage());
    if (str(pod, {"metadata", "labels", kLabelRole}) == "trainer") {
      ++trainers;
      EXPECT_EQ(str(c, {"resources", "limits", kGpuResource}), "2");
      EXPECT_EQ(str(c, {"resources", "requests", kGpuResource}), "2");
      EXPECT_EQ(str(pod, {"spec", "nodeSelector", "nvidia.com/gpu.present"}), "true");
    } else {
      EXPECT_FALSE(c.at("resources").at("limits").has_field(kGpuResource));
      EXPECT_FALSE(pod.at("spec").has_field("nodeSelector"));
    }
  }
  EXPECT_EQ(trainers, 2);
}

TEST_F(ControllerTest, RunningThenSucceededWithResultsAndCleanUp) {
  startController();
  createBenchmark("ok");
  ASSERT_TRUE(eventually([&] { return podsAre("ok", 4); }));
  allRunning("ok");
  ASSERT_TRUE(benchmarkWhere("ok", [](const value& b) {
    return str(b, {"status", "phase"}) == "Running" && conditionTrue(b, "Running") &&
           str(b, {"status", "trainers", "ready"}) == "2";
  })) << last_.serialize();

  setPod("ok-trainer-0", "Succeeded");
  setPod("ok-trainer-1", "Succeeded");
  // Trainers done, master still running: not finished yet.
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(str(getBenchmark("ok"), {"status", "phase"}), "Running");
  setPod("ok-master-0", "Succeeded", 0,
         R"({"kind":"HybridDDPRPC","p50":"0.376s","bottleneck":"HybridDDPRPC All: )"
         R"(communication-bound","rows":[{"row":"All","p50":0.376}]})");
  ASSERT_TRUE(benchmarkWhere("ok", [](const value& b) {
    return str(b, {"status", "phase"}) == "Succeeded";
  })) << last_.serialize();
  EXPECT_EQ(str(last_, {"status", "results", "p50"}), "0.376s");
  // The CRD's schema keeps it (a field it does not list would be pruned).
  EXPECT_EQ(str(last_, {"status", "bottleneck"}), "HybridDDPRPC All: communication-bound");
  EXPECT_TRUE(conditionTrue(last_, "Succeeded"));
  EXPECT_FALSE(conditionTrue(last_, "Running"));
  EXPECT_FALSE(str(last_, {"status", "completionTime"}).empty());
  EXPECT_EQ(str(last_, {"status", "trainers", "succeeded"}), "2");
  // cleanPodPolicy Running: the parameter server, still running, goes; the
  // finished pods stay for their logs; the Services go.
  ASSERT_TRUE(eventually([&] { return podsAre("ok", 3); }));
  for (const value& p : podsOf("ok")) EXPECT_NE(p.at("metadata").at("name").as_string(), "ok-ps-0");
  ASSERT_TRUE(eventually([&] {
    try {
      client_->get(kube::corePath(ns_, "services", "ok-master"));
      return false;
    } catch (const kube::KubeApiError& e) {
      return e.notFound();
    }
  }));
  EXPECT_TRUE(eventually([&] { return sawEvent("Normal AllRanksSucceeded"); }));
  EXPECT_TRUE(eventually(
      [&] { return sawEvent("Normal Bottleneck: HybridDDPRPC All: communication-bound"); }));
  // Each clean-up delete names the object it read (its UID a precondition),
  // so one deleted and created again meanwhile under the name is left be.
  ASSERT_TRUE(eventually([&] {
    return !deletesOf("networkpolicies", "ok-gang").empty() &&
           !deletesOf("services", "ok-workers").empty() && !deletesOf("pods", "ok-ps-0").empty();
  }));
  for (const auto& [resource, name] :
       std::vector<std::pair<std::string, std::string>>{{"services", "ok-master"},
                                                        {"services", "ok-workers"},
                                                        {"networkpolicies", "ok-gang"},
                                                        {"pods", "ok-ps-0"}}) {
    for (const kubetest::AuditRecord& d : deletesOf(resource, name)) {
      EXPECT_FALSE(d.preconditionUid.empty()) << resource << "/" << name << ": " << d.requestUri;
    }
  }
}

TEST_F(ControllerTest, FailedTrainerRestartsTheGangUntilTheBackoffLimit) {
  startController();
  value spec = value::object();
  spec["runPolicy"]["backoffLimit"] = value::number(1);
  createBenchmark("flaky", spec);
  ASSERT_TRUE(eventually([&] { return podsAre("flaky", 4, "0"); }));
  const std::string firstUid = client_->get(kube::corePath(ns_, "pods", "flaky-master-0"))
                                   .at("metadata")
                                   .at("uid")
                                   .as_string();
  allRunning("flaky");
  ASSERT_TRUE(benchmarkWhere("flaky", [](const value& b) { return str(b, {"status", "phase"}) == "Running"; }));

  setPod("flaky-trainer-1", "Failed", 1, "allreduce: peer closed");
  ASSERT_TRUE(benchmarkWhere("flaky", [](const value& b) {
    return str(b, {"status", "restartCount"}) == "1" && conditionTrue(b, "Restarting");
  })) << last_.serialize();
  EXPECT_NE(condition(last_, "Restarting")->at("message").as_string().find("flaky-trainer-1 (rank 3)"),
            std::string::npos);
  // The whole gang is recreated, every pod new.
  ASSERT_TRUE(eventually([&] { return podsAre("flaky", 4, "1"); })) << podsOf("flaky").size();
  EXPECT_NE(client_->get(kube::corePath(ns_, "pods", "flaky-master-0"))
                .at("metadata")
                .at("uid")
                .as_string(),
            firstUid);
  allRunning("flaky");
  ASSERT_TRUE(benchmarkWhere("flaky", [](const value& b) {
    return str(b, {"status", "phase"}) == "Running" && !conditionTrue(b, "Restarting");
  })) << last_.serialize();

  setPod("flaky-ps-0", "Failed", 137);
  ASSERT_TRUE(benchmarkWhere("flaky", [](const value& b) {
    return str(b, {"status", "phase"}) == "Failed";
  })) << last_.serialize();
  EXPECT_TRUE(conditionTrue(last_, "BackoffLimitExceeded"));
  EXPECT_TRUE(conditionTrue(last_, "Failed"));
  EXPECT_EQ(condition(last_, "Failed")->at("reason").as_string(), "BackoffLimitExceeded");
  EXPECT_NE(str(last_, {"status", "message"}).find("flaky-ps-0"), std::string::npos);
  EXPECT_EQ(str(last_, {"status", "restartCount"}), "1");
  // Nothing left running.
  ASSERT_TRUE(eventually([&] {
    for (const value& p : podsOf("flaky"))
      if (str(p, {"status", "phase"}) == "Running" || str(p, {"status", "phase"}) == "Pending")
        return false;
    return true;
  }));
  EXPECT_TRUE(eventually([&] { return sawEvent("Warning RankFailed"); }));
  EXPECT_TRUE(eventually([&] { return sawEvent("Warning BackoffLimitExceeded"); }));
}

// The kernel OOM-kills a trainer at its container's limit: the run's
// reason is OOMKilled and the message names the rank and the limit, read
// from the pod as the operator's cache keeps it.
TEST_F(ControllerTest, OomKilledTrainerFailsTheRunNamingTheLimit) {
  startController();
  value spec = value::object();
  spec["runPolicy"]["backoffLimit"] = value::number(0);
  spec["podTemplates"]["trainer"]["resources"]["limits"]["memory"] = value::string("40Mi");
  createBenchmark("oom", spec);
  ASSERT_TRUE(eventually([&] { return podsAre("oom", 4); }));
  allRunning("oom");
  value patch = value::object();
  patch["status"]["phase"] = value::string("Failed");
  value terminated = value::object();
  terminated["exitCode"] = value::number(137);
  terminated["reason"] = value::string("OOMKilled");
  value cs = value::object();
  cs["name"] = value::string("worker");
  cs["ready"] = value::boolean(false);
  cs["restartCount"] = value::number(0);
  cs["image"] = value::string("worker");
  cs["imageID"] = value::string("");
  cs["state"]["terminated"] = terminated;
  patch["status"]["containerStatuses"] = value::array({cs});
  client_->mergePatch(kube::corePath(ns_, "pods", "oom-trainer-1") + "/status", patch);
  ASSERT_TRUE(benchmarkWhere("oom", [](const value& b) {
    return str(b, {"status", "phase"}) == "Failed";
  }, 30s)) << last_.serialize();
  EXPECT_EQ(condition(last_, "Failed")->at("reason").as_string(), "OOMKilled");
  EXPECT_TRUE(conditionTrue(last_, "BackoffLimitExceeded"));
  EXPECT_NE(str(last_, {"status", "message"})
                .find("oom-trainer-1 (rank 3): exit code 137, OOMKilled (memory limit 40Mi)"),
            std::string::npos)
      << str(last_, {"status", "message"});
  // The Event goes out just after the status write the test may read first.
  EXPECT_TRUE(eventually([&] { return sawEvent("Warning OOMKilled"); }));
}

TEST_F(ControllerTest, ActiveDeadlineFailsTheRunAndDeletesItsPods) {
  startController();
  value spec = value::object();
  spec["runPolicy"]["activeDeadlineSeconds"] = value::number(2);
  createBenchmark("slow", spec);
  ASSERT_TRUE(eventually([&] { return podsAre("slow", 4); }));
  allRunning("slow");
  ASSERT_TRUE(benchmarkWhere("slow", [](const value& b) {
    return str(b, {"status", "phase"}) == "Failed";
  }, 30s)) << last_.serialize();
  EXPECT_TRUE(conditionTrue(last_, "DeadlineExceeded"));
  EXPECT_EQ(condition(last_, "Failed")->at("reason").as_string(), "DeadlineExceeded");
  ASSERT_TRUE(eventually([&] { return podsAre("slow", 0); }));
}

TEST_F(ControllerTest, RendezvousTimeoutReportsWhyPodsWait) {
  startController();
  value spec = value::object();
  spec["runtime"]["rendezvousTimeoutSeconds"] = value::number(2);
  createBenchmark("stuck", spec);
  ASSERT_TRUE(eventually([&] { return podsAre("stuck", 4); }));
  for (const char* pod : {"-master-0", "-ps-0", "-trainer-0"}) setPod(std::string("stuck") + pod, "Running");
  // The scheduler's word on the last one.
  value patch = value::object();
  value c = value::object();
  c["type"] = value::string("PodScheduled");
  c["status"] = value::string("False");
  c["reason"] = value::string("Unschedulable");
  c["message"] = value::string("0/3 nodes are available: 3 Insufficient cpu.");
  patch["status"]["conditions"] = value::array({c});
  client_->mergePatch(kube::corePath(ns_, "pods", "stuck-trainer-1") + "/status", patch);

  ASSERT_TRUE(benchmarkWhere("stuck", [](const value& b) {
    return str(b, {"status", "phase"}) == "Failed";
  }, 30s)) << last_.serialize();
  ASSERT_TRUE(conditionTrue(last_, "RendezvousTimeout"));
  // The cause is the reason; the rule that ended the run, its own condition.
  EXPECT_EQ(condition(last_, "Failed")->at("reason").as_string(), "Unschedulable");
  EXPECT_EQ(condition(last_, "RendezvousTimeout")->at("reason").as_string(), "Unschedulable");
  const std::string message = condition(last_, "RendezvousTimeout")->at("message").as_string();
  EXPECT_NE(message.find("stuck-trainer-1 (rank 3): Unschedulable: 0/3 nodes are available"),
            std::string::npos)
      << message;
  EXPECT_EQ(str(last_, {"status", "restartCount"}), "0");  // no crash loop
  ASSERT_TRUE(eventually([&] { return podsAre("stuck", 0); }));
}

TEST_F(ControllerTest, TtlAfterFinishedDeletesTheResource) {
  startController();
  value spec = value::object();
  spec["runPolicy"]["ttlSecondsAfterFinished"] = value::number(1);
  spec["runPolicy"]["backoffLimit"] = value::number(0);
  createBenchmark("brief", spec);
  ASSERT_TRUE(eventually([&] { return podsAre("brief", 4); }));
  setPod("brief-trainer-0", "Failed", 1);
  ASSERT_TRUE(benchmarkWhere("brief", [](const value& b) { return str(b, {"status", "phase"}) == "Failed"; }));
  ASSERT_TRUE(eventually([&] {
    try {
      getBenchmark("brief");
      return false;
    } catch (const kube::KubeApiError& e) {
      return e.notFound();
    }
  }, 30s));
  // With no garbage collector running here, the operator removes children.
  ASSERT_TRUE(eventually([&] { return podsAre("brief", 0); }));
}

// The TTL's delete names the benchmark it read: one deleted and created
// again under the same name meanwhile (here between the Failed status
// write and the delete that follows it in the same reconcile) is another
// run, not the operator's to remove.
TEST_F(ControllerTest, TheTtlDeletesOnlyTheBenchmarkItRead) {
  value spec = value::object();
  spec["runPolicy"]["ttlSecondsAfterFinished"] = value::number(0);
  spec["runPolicy"]["backoffLimit"] = value::number(0);
  // Nothing to clean up: the delete follows the Failed write directly.
  spec["runPolicy"]["cleanPodPolicy"] = value::string("None");
  std::mutex mutex;
  std::string secondUid;
  onEvent_ = [&](const std::string& reason) {
    std::lock_guard<std::mutex> lock(mutex);
    if (reason != "BackoffLimitExceeded" || !secondUid.empty()) return;
    client_->remove(benchmarksPath("twice"));
    secondUid = str(createBenchmark("twice", spec), {"metadata", "uid"});
  };
  startController();
  const std::string firstUid = str(createBenchmark("twice", spec), {"metadata", "uid"});
  ASSERT_TRUE(eventually([&] { return podsAre("twice", 4); }));
  setPod("twice-trainer-0", "Failed", 1);
  ASSERT_TRUE(eventually([&] {
    std::lock_guard<std::mutex> lock(mutex);
    return !secondUid.empty();
  })) << getBenchmark("twice").serialize();
  std::this_thread::sleep_for(2s);
  std::lock_guard<std::mutex> lock(mutex);
  value found;
  ASSERT_NO_THROW(found = getBenchmark("twice")) << "the re-created benchmark was deleted";
  EXPECT_EQ(str(found, {"metadata", "uid"}), secondUid);
  EXPECT_NE(secondUid, firstUid);
}

TEST_F(ControllerTest, DeletedResourceTakesItsChildren) {
  startController();
  createBenchmark("gone");
  ASSERT_TRUE(eventually([&] { return podsAre("gone", 4); }));
  client_->remove(benchmarksPath("gone"));
  ASSERT_TRUE(eventually([&] { return podsAre("gone", 0); }));
  ASSERT_TRUE(eventually([&] {
    value svcs = client_->get(kube::corePath(ns_, "services"));
    value cms = client_->get(kube::corePath(ns_, "configmaps") +
                             "?labelSelector=" + kube::queryEscape(kLabelBenchmark));
    return svcs.at("items").size() == 0 && cms.at("items").size() == 0;
  }));
  // The orphans' deletes too name the objects the cache showed.
  for (const auto& [resource, name] : std::vector<std::pair<std::string, std::string>>{
           {"services", "gone-master"}, {"configmaps", "gone-config"}, {"pods", "gone-master-0"}}) {
    const std::vector<kubetest::AuditRecord> deletes = deletesOf(resource, name);
    EXPECT_FALSE(deletes.empty()) << resource << "/" << name;
    for (const kubetest::AuditRecord& d : deletes)
      EXPECT_FALSE(d.preconditionUid.empty()) << resource << "/" << name << ": " << d.requestUri;
  }
}

TEST_F(ControllerTest, InvalidSpecTheSchemaLetThroughFailsWithTheField) {
  startController();
  value spec = value::object();
  spec["benchmark"]["kind"] = value::string("DDP");
  createBenchmark("bad", spec);  // DDP with a parameter server: a cross-field rule
  ASSERT_TRUE(benchmarkWhere("bad", [](const value& b) { return str(b, {"status", "phase"}) == "Failed"; }))
      << last_.serialize();
  EXPECT_EQ(condition(last_, "Failed")->at("reason").as_string(), "InvalidSpec");
  EXPECT_NE(str(last_, {"status", "message"}).find("spec.topology.parameterServers"), std::string::npos)
      << str(last_, {"status", "message"});
  EXPECT_TRUE(podsOf("bad").empty());
}

TEST_F(ControllerTest, ConvergesAfterTheApiServerRestarts) {
  startController();
  createBenchmark("survivor");
  ASSERT_TRUE(eventually([&] { return podsAre("survivor", 4); }));
  cluster_->restartApiServer();
  allRunning("survivor");
  ASSERT_TRUE(benchmarkWhere("survivor", [](const value& b) {
    return str(b, {"status", "phase"}) == "Running";
  })) << last_.serialize();
  createBenchmark("after");
  ASSERT_TRUE(eventually([&] { return podsAre("after", 4); }));
}

// kube-apiserver and etcd both gone while a run is Running: the watches
// break and every request is refused. Once they are back the controller
// follows the run to its end as if nothing happened, and stores its report
// once. (An outage longer than the informers' 1 s backoff cap here; what a
// Lease does in one is operator_binary_test's.)
TEST_F(ControllerTest, SurvivesTheControlPlaneDown) {
  std::unique_ptr<kubetest::FakeKubelet> kubelet;
  ASSERT_NO_THROW(kubelet = std::make_unique<kubetest::FakeKubelet>(*client_, *cluster_,
                                                                    dir_->path(), "ctl-" + ns_));
  startController();
  createBenchmark("outage");
  ASSERT_TRUE(eventually([&] { return podsAre("outage", 4); }));
  for (const value& pod : podsOf("outage")) kubelet->bind(ns_, str(pod, {"metadata", "name"}));
  allRunning("outage");
  ASSERT_TRUE(benchmarkWhere("outage", [](const value& b) {
    return str(b, {"status", "phase"}) == "Running";
  })) << last_.serialize();
  std::ifstream report(std::string(DISTBENCH_REPORT_FIXTURES) + "/report/tutorial-run.json");
  kubelet->writeMasterLog(ns_, "outage",
                          kubetest::FakeKubelet::logWithReport(
                              std::string(std::istreambuf_iterator<char>(report), {})));
  const std::string audit = cluster_->auditLogPath();
  const std::uint64_t from = kubetest::auditLogSize(audit);
  {
    kubetest::ControlPlaneOutage outage(*cluster_);
    outage.endAfter(5s);
    std::fprintf(stderr, "control plane down for %.1f s\n",
                 std::chrono::duration<double>(outage.elapsed()).count());
  }

  setPod("outage-trainer-0", "Succeeded");
  setPod("outage-trainer-1", "Succeeded");
  setPod("outage-master-0", "Succeeded", 0, R"({"kind":"HybridDDPRPC","p50":"0.376s"})");
  ASSERT_TRUE(benchmarkWhere("outage", [](const value& b) {
    return str(b, {"status", "phase"}) == "Succeeded" && conditionTrue(b, "ReportStored");
  })) << last_.serialize();
  EXPECT_NO_THROW(
      client_->get(kube::corePath(ns_, "configmaps", api::reportConfigMapName("outage"))));
  int stored = 0;
  for (const auto& r : kubetest::readAuditLog(audit, "", from))
    if (r.verb == "create" && r.resource == "configmaps" && r.ns == ns_ &&
        r.name == api::reportConfigMapName("outage") && r.stage == "ResponseComplete" &&
        r.code == 201)
      ++stored;
  EXPECT_EQ(stored, 1);
  // And new work goes on.
  createBenchmark("after");
  EXPECT_TRUE(eventually([&] { return podsAre("after", 4); }));
}

// An operator restarted mid-run (a new process: empty memos) reads what it
// would write and finds it there: no create the server refuses with 409, no
// replace of identical Endpoints, for each running benchmark.
class RestartedControllerTest : public ControllerTest {
 protected:
  void TearDown() override {
    ControllerTest::TearDown();
    controller_.reset();  // before the client it uses
  }

  std::unique_ptr<kube::KubeClient> operatorClient_;
};

TEST_F(RestartedControllerTest, ARestartedOperatorRederivesItsStateWithoutWrites) {
  startController();
  createBenchmark("steady");
  ASSERT_TRUE(eventually([&] { return podsAre("steady", 4); }));
  allRunning("steady");
  ASSERT_TRUE(benchmarkWhere("steady", [](const value& b) {
    return str(b, {"status", "phase"}) == "Running";
  })) << last_.serialize();
  // The master Service points at the master pod.
  ASSERT_TRUE(eventually([&] {
    return client_->get(kube::corePath(ns_, "endpoints", "steady-master"))
               .serialize()
               .find("198.18.0.2") != std::string::npos;
  }));
  controller_->stop();
  controller_.reset();

  // The next operator, as the operator's user (every right in this
  // namespace), so that the audit log tells its requests from the test's.
  value binding = value::parse(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding",
      "metadata":{"name":"operator"},
      "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"cluster-admin"},
      "subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"distbench-operator"}]})");
  client_->create(kube::groupPath("rbac.authorization.k8s.io", "v1", ns_, "rolebindings"), binding);
  const std::string kubeconfig = dir_->path() + "/operator.kubeconfig";
  cluster_->writeKubeconfig(kubeconfig, kubetest::KubeTestCluster::kOperatorUser);
  operatorClient_ = std::make_unique<kube::KubeClient>(kube::loadKubeconfig(kubeconfig));
  const std::string audit = cluster_->auditLogPath();
  const std::uint64_t from = kubetest::auditLogSize(audit);
  startController(60s, operatorClient_.get());

  // Its first reconcile of "steady" has ended: everything it would write
  // for a Running benchmark, it has written.
  ASSERT_TRUE(eventually([&] { return reconciledOk("steady") >= 1; }))
      << "the restarted operator never reconciled \"steady\"";
  // A request made now shows once the log holds every request answered
  // before it (an event is logged after its response is sent).
  const std::string marker = kube::corePath(ns_, "configmaps", "restart-audit-marker");
  try {
    operatorClient_->get(marker);
  } catch (const kube::KubeApiError&) {
  }
  std::vector<kubetest::AuditRecord> requests;
  ASSERT_TRUE(eventually([&] {
    requests = kubetest::readAuditLog(audit, kubetest::KubeTestCluster::kOperatorUser, from);
    return std::any_of(requests.begin(), requests.end(),
                       [&](const auto& r) { return r.requestUri == marker; });
  })) << "the marker request never reached "
      << audit;
  requests.erase(std::remove_if(requests.begin(), requests.end(),
                                [&](const auto& r) {
                                  return r.ns != ns_ || r.stage != "ResponseComplete" ||
                                         r.requestUri == marker;
                                }),
                 requests.end());
  // It did look, or this proves nothing.
  EXPECT_TRUE(std::any_of(requests.begin(), requests.end(),
                          [](const auto& r) { return r.resource == "endpoints"; }));
  EXPECT_TRUE(std::any_of(requests.begin(), requests.end(),
                          [](const auto& r) { return r.resource == "secrets"; }));
  std::string writes;
  for (const auto& r : requests) {
    if (r.verb == "create" || r.verb == "update" || r.verb == "patch" || r.verb == "delete")
      writes +=
          "  " + r.verb + " " + r.resource + "/" + r.name + " -> " + std::to_string(r.code) + "\n";
  }
  EXPECT_EQ(writes, "") << "writes by the restarted operator:\n" << writes;
  EXPECT_EQ(str(getBenchmark("steady"), {"status", "phase"}), "Running");
}

}  // namespace
}  // namespace distbench::op

namespace distbench::op {
namespace {

TEST_F(ControllerTest, APodDeletedWhileTheGangRunsRestartsTheGang) {
  startController();
  createBenchmark("evicted");
  ASSERT_TRUE(eventually([&] { return podsAre("evicted", 4, "0"); }));
  allRunning("evicted");
  ASSERT_TRUE(benchmarkWhere("evicted", [](const value& b) { return str(b, {"status", "phase"}) == "Running"; }));
  client_->remove(kube::corePath(ns_, "pods", "evicted-trainer-0"));
  ASSERT_TRUE(benchmarkWhere("evicted", [](const value& b) {
    return str(b, {"status", "restartCount"}) == "1";
  })) << last_.serialize();
  // Seen gone, or seen terminating first: either way it is named.
  const std::string why = condition(last_, "Restarting")->at("message").as_string();
  EXPECT_NE(why.find("evicted-trainer-0"), std::string::npos) << why;
  EXPECT_NE(why.find("deleted while the gang ran"), std::string::npos) << why;
  ASSERT_TRUE(eventually([&] { return podsAre("evicted", 4, "1"); }));
}

TEST_F(ControllerTest, ASpecChangedMidRunEndsItInsteadOfMixingSpecs) {
  startController();
  createBenchmark("edited");
  ASSERT_TRUE(eventually([&] { return podsAre("edited", 4); }));
  ASSERT_TRUE(benchmarkWhere("edited", [](const value& b) { return conditionTrue(b, "Created"); }));
  value patch = value::object();
  patch["spec"]["topology"]["trainers"] = value::number(3);
  client_->mergePatch(benchmarksPath("edited"), patch);
  ASSERT_TRUE(benchmarkWhere("edited", [](const value& b) { return str(b, {"status", "phase"}) == "Failed"; }))
      << last_.serialize();
  EXPECT_EQ(condition(last_, "Failed")->at("reason").as_string(), "SpecChanged");
  EXPECT_EQ(str(last_, {"status", "observedGeneration"}), "2");
  ASSERT_TRUE(eventually([&] { return podsAre("edited", 0); }));  // all were pending
}

}  // namespace
}  // namespace distbench::op
