// The chart's RBAC against what the operator really calls
// (support/rbac_audit.h). The ClusterRole and leader-election Role that
// `helm template charts/distbench-operator` renders are applied to the test
// cluster and bound to the user "distbench-operator"; the built
// distbench-operator runs as that user through every path that talks to the
// API (leader election, children created, pods running then succeeded,
// results, clean-up, TTL deletion, a gang restart, a repeated Event, a
// benchmark deleted mid-run, children's names taken by strangers' objects);
// then the API server's audit log of that user is compared with the rules:
// every request allowed and covered by a rule, every rule used.
#include <gtest/gtest.h>
#include <signal.h>
#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include "distbench/api/object_names.h"
#include "distbench/api/renderer.h"
#include "distbench/operator/benchmarks/desired_objects.h"
#include "distbench/operator/benchmarks/reconciler.h"
#include "distbench/testing/kube/audit_log.h"
#include "distbench/testing/kube/operator_process.h"
#include "support/benchmark_namespace_test.h"
#include "support/rbac_audit.h"

#ifndef DISTBENCH_OPERATOR_BINARY
#error "DISTBENCH_OPERATOR_BINARY must name the built distbench-operator"
#endif

namespace distbench::op {
namespace {

using web::json::value;
using namespace std::chrono_literals;
using kubetest::AuditRecord;
using kubetest::AuditRequest;
using kubetest::eventually;
using kubetest::KubeTestCluster;
using kubetest::OperatorProcess;

const std::string kRelease = "rbac-audit";
const std::string kLeaseNamespace = "rbac-audit-system";  // the release namespace
const std::string kIdentity = "rbac-audit-0";

std::string str(const value& v, const std::vector<std::string>& path) {
  const value* at = &v;
  for (const std::string& p : path) {
    if (!at->is_object() || !at->has_field(p)) return "";
    at = &at->at(p);
  }
  if (at->is_string()) return at->as_string();
  if (at->is_number()) return std::to_string(at->as_number().to_int64());
  return "";
}

class RbacAuditTest : public kubetest::BenchmarkNamespaceTest {
 protected:
  RbacAuditTest() : BenchmarkNamespaceTest("rbac") {}

  void TearDown() override {
    if (operator_) {
      operator_->signal(SIGKILL);
      operator_->wait(5000);
    }
  }

  void apply(const std::string& collection, const std::string& yaml) {
    kubetest::applyAsAdmin(collection, yaml);
  }
  void bind(const std::string& kind, const std::string& ns, const std::string& name,
            const std::string& roleKind, const std::string& role) {
    kubetest::bindToUser(kind, ns, name, roleKind, role, KubeTestCluster::kOperatorUser);
  }

  std::string benchmarksPath(const std::string& name = "") const {
    return kube::groupPath(kGroup, kVersion, ns_, kPlural, name);
  }

  void createBenchmark(const std::string& name, const value& runPolicy = value::object()) {
    value b = kubetest::smallBenchmark(name);
    if (runPolicy.size() > 0) b["spec"]["runPolicy"] = runPolicy;
    client_->create(benchmarksPath(), b);
  }

  bool benchmarkWhere(const std::string& name, const std::function<bool(const value&)>& test,
                      std::chrono::milliseconds deadline = 30s) {
    return eventually(
        [&] {
          try {
            last_ = client_->get(benchmarksPath(name));
            return test(last_);
          } catch (const kube::KubeApiError&) {
            return false;
          }
        },
        deadline);
  }

  bool benchmarkGone(const std::string& name) {
    return eventually([&] {
      try {
        client_->get(benchmarksPath(name));
        return false;
      } catch (const kube::KubeApiError& e) {
        return e.notFound();
      }
    });
  }

  // The benchmark's live objects of one kind (those being deleted left out).
  size_t count(const std::string& collection, const std::string& name, const std::string& gang = "") {
    const value list = client_->get(collection + "?labelSelector=" +
                                    kube::queryEscape(std::string(kLabelBenchmark) + "=" + name));
    size_t n = 0;
    for (const value& o : list.at("items").as_array())
      if (!o.at("metadata").has_field("deletionTimestamp") &&
          (gang.empty() || str(o, {"metadata", "labels", kLabelGang}) == gang))
        ++n;
    return n;
  }
  size_t pods(const std::string& name, const std::string& gang = "") {
    return count(kube::corePath(ns_, "pods"), name, gang);
  }
  // Every child of the benchmark gone: pods, Services, ConfigMaps, and
  // NetworkPolicies where the API server has them.
  bool noChildren(const std::string& name) {
    return eventually([&] {
      return pods(name) == 0 && count(kube::corePath(ns_, "services"), name) == 0 &&
             count(kube::corePath(ns_, "configmaps"), name) == 0 &&
             count("/apis/networking.k8s.io/v1/namespaces/" + ns_ + "/networkpolicies", name) == 0;
    });
  }

  // The kubelet's part (as in controller_test.cpp): pod phase and container state.
  void setPod(const std::string& pod, const std::string& phase, int exitCode = 0, const std::string& message = "") {
    client_->mergePatch(kube::corePath(ns_, "pods", pod) + "/status",
                        kubetest::podStatusPatch(phase, exitCode, message));
  }

  void allRunning(const std::string& name) {
    for (const char* pod : {"-master-0", "-ps-0", "-trainer-0", "-trainer-1"}) setPod(name + pod, "Running");
  }

  // The count of the Event with this reason on the benchmark; 0 when none.
  int eventCount(const std::string& benchmark, const std::string& reason) {
    const value events = client_->get(kube::corePath(ns_, "events"));
    for (const value& e : events.at("items").as_array())
      if (str(e, {"reason"}) == reason && str(e, {"involvedObject", "name"}) == benchmark)
        return static_cast<int>(e.at("count").as_integer());
    return 0;
  }

  // An object of the admin's, unlabelled (so no informer caches it), named
  // as one of a benchmark's children will be.
  void createForeign(const std::string& collection, const std::string& kind, const std::string& apiVersion,
                     const std::string& name, const std::string& spec) {
    kubetest::Response r = kubetest::call(web::http::methods::POST, collection,
                                          "apiVersion: " + apiVersion + "\nkind: " + kind + "\nmetadata:\n  name: " +
                                              name + "\n" + spec,
                                          "application/yaml");
    ASSERT_TRUE(r.status == 201 || r.status == 409) << kind << " " << name << ": " << r.body;
  }

  std::string leaseHolder() {
    try {
      return str(client_->get("/apis/coordination.k8s.io/v1/namespaces/" + kLeaseNamespace +
                              "/leases/distbench-operator"),
                 {"spec", "holderIdentity"});
    } catch (const kube::KubeApiError&) {
      return "";
    }
  }

  std::string log() const { return operator_ ? operator_->log() : ""; }

  static std::string tutorialReport() {
    std::ifstream in(std::string(DISTBENCH_REPORT_FIXTURES) + "/report/tutorial-run.json");
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  std::unique_ptr<OperatorProcess> operator_;
  value last_;
};

TEST_F(RbacAuditTest, TheChartGrantsExactlyWhatTheOperatorCalls) {
  // 1. The chart's rules, applied and bound to the operator's user.
  std::string noHelm;
  const std::string helm = kubetest::helmOrWhyNot(noHelm);
  if (helm.empty()) GTEST_SKIP() << noHelm;
  const auto objects = kubetest::renderChart(helm, kRelease, kLeaseNamespace, dir_->path());
  if (HasFailure()) return;
  const std::string clusterRoleKey = "ClusterRole/" + kRelease + "-distbench-operator";
  const std::string roleKey = "Role/" + kRelease + "-distbench-operator-leader-election";
  ASSERT_TRUE(objects.count(clusterRoleKey) && objects.count(roleKey))
      << "helm template rendered no " << clusterRoleKey << " or " << roleKey;
  const YAML::Node& clusterRole = objects.at(clusterRoleKey);
  const YAML::Node& role = objects.at(roleKey);
  ASSERT_EQ(role["metadata"]["namespace"].as<std::string>(), kLeaseNamespace);

  kubetest::ensureNamespace(*client_, kLeaseNamespace);
  YAML::Emitter cr, r;
  cr << clusterRole;
  r << role;
  apply("/apis/rbac.authorization.k8s.io/v1/clusterroles", cr.c_str());
  apply("/apis/rbac.authorization.k8s.io/v1/namespaces/" + kLeaseNamespace + "/roles", r.c_str());
  bind("ClusterRoleBinding", "", kRelease + "-operator", "ClusterRole", clusterRole["metadata"]["name"].as<std::string>());
  bind("RoleBinding", kLeaseNamespace, kRelease + "-leader-election", "Role", role["metadata"]["name"].as<std::string>());
  // Pods need a PodSecurityPolicy their creator may use; the restricted one,
  // as a hardened cluster would grant.
  bind("ClusterRoleBinding", "", kRelease + "-restricted-psp", "ClusterRole",
       KubeTestCluster::restrictedPspClusterRole());
  if (HasFatalFailure()) return;

  // Served before the operator starts: it runs schedules only where the
  // API server serves them.
  kubetest::establishedScheduleCrd();

  std::set<AuditRequest> granted = kubetest::rulesOf(clusterRole, "");
  for (const AuditRequest& g : kubetest::rulesOf(role, kLeaseNamespace)) granted.insert(g);

  // 2. The operator, as that user, through every path that talks to the API.
  // Only what the log gets from now on counts: other tests may have used
  // the same user.
  const std::uint64_t auditFrom = kubetest::auditLogSize(cluster_->auditLogPath());
  const std::string userKubeconfig = dir_->path() + "/operator.kubeconfig";
  cluster_->writeKubeconfig(userKubeconfig, KubeTestCluster::kOperatorUser);
  const int port = kubetest::freePort();
  operator_ = std::make_unique<OperatorProcess>(
      DISTBENCH_OPERATOR_BINARY,
      std::vector<std::string>{"--kubeconfig", userKubeconfig, "--namespace", ns_, "--leader-elect",
                               "--leader-election-namespace", kLeaseNamespace, "--lease-duration", "3",
                               "--renew-deadline", "2", "--retry-period", "0.5", "--http-address",
                               "127.0.0.1:" + std::to_string(port), "--log-format", "text"},
      std::vector<std::string>{"POD_NAME=" + kIdentity}, dir_->path() + "/operator.log");
  // Leader election: Lease get (404), create, then get and update to renew.
  ASSERT_TRUE(eventually([&] { return leaseHolder() == kIdentity; })) << log();

  // A schedule firing every minute: its run comes while the paths below
  // run, and is finished near the end (schedule paths, at the end).
  value sched = value::parse(R"({"apiVersion": "distbench.io/v1alpha1",
    "kind": "DistBenchmarkSchedule", "metadata": {"name": "nightly"},
    "spec": {"schedule": "* * * * *", "template": {"spec": {"topology":
      {"trainers": 2, "parameterServers": 1}}}}})");
  client_->create(kubetest::establishedScheduleCrd().path(ns_), sched);

  // Children created, pods running then succeeded, results; clean-up
  // deletes; ttlSecondsAfterFinished deletes the resource and its children.
  value ttl = value::object();
  ttl["ttlSecondsAfterFinished"] = value::number(3);
  // Every child deleted by the operator itself while the resource exists
  // (ConfigMap and run key Secret included), not raced by the garbage
  // collector as orphans are.
  ttl["cleanPodPolicy"] = value::string("All");
  // Endpoints for its master Service that someone else wrote first: the
  // operator's create finds them, reads (get) and replaces (update) them;
  // "flaky" below gets its Endpoints created (create).
  client_->create(kube::corePath(ns_, "endpoints"), value::parse(R"({"apiVersion": "v1",
    "kind": "Endpoints", "metadata": {"name": "ok-master"}})"));
  createBenchmark("ok", ttl);
  ASSERT_TRUE(eventually([&] { return pods("ok") == 4; })) << log();
  allRunning("ok");
  ASSERT_TRUE(benchmarkWhere("ok", [](const value& b) { return str(b, {"status", "phase"}) == "Running"; }))
      << last_.serialize() << log();
  setPod("ok-trainer-0", "Succeeded");
  setPod("ok-trainer-1", "Succeeded");
  setPod("ok-master-0", "Succeeded", 0, R"({"kind":"HybridDDPRPC","p50":"0.376s","rows":[]})");
  ASSERT_TRUE(benchmarkWhere("ok", [](const value& b) { return str(b, {"status", "phase"}) == "Succeeded"; }))
      << last_.serialize() << log();
  EXPECT_EQ(str(last_, {"status", "results", "p50"}), "0.376s");
  ASSERT_TRUE(benchmarkGone("ok")) << "ttlSecondsAfterFinished did not delete it\n" << log();
  ASSERT_TRUE(noChildren("ok")) << log();

  // A failed trainer restarts the gang (pod deletes); the gang running again
  // repeats the AllRanksStarted Event, which the recorder patches.
  value backoff = value::object();
  backoff["backoffLimit"] = value::number(1);
  createBenchmark("flaky", backoff);
  ASSERT_TRUE(eventually([&] { return pods("flaky", "0") == 4; })) << log();
  allRunning("flaky");
  ASSERT_TRUE(benchmarkWhere("flaky", [](const value& b) { return str(b, {"status", "phase"}) == "Running"; }))
      << last_.serialize() << log();
  setPod("flaky-trainer-1", "Failed", 1, "allreduce: peer closed");
  ASSERT_TRUE(eventually([&] { return pods("flaky", "1") == 4 && pods("flaky") == 4; })) << log();
  allRunning("flaky");
  ASSERT_TRUE(benchmarkWhere("flaky", [](const value& b) {
    return str(b, {"status", "phase"}) == "Running" && str(b, {"status", "restartCount"}) == "1";
  })) << last_.serialize() << log();
  ASSERT_TRUE(eventually([&] { return eventCount("flaky", "AllRanksStarted") >= 2; }))
      << "the repeated AllRanksStarted Event was not aggregated\n" << log();

  // A benchmark deleted mid-run: the operator removes its orphans (no
  // garbage collector runs here).
  client_->remove(benchmarksPath("flaky"));
  ASSERT_TRUE(noChildren("flaky")) << log();

  // A child's name already taken by someone else's object, which no
  // informer caches: the create answers 409 and the operator reads the
  // object (get) to tell an earlier same-named benchmark's from a stranger's;
  // a stranger's ends the run with NameConflict. One benchmark per kind,
  // since the first conflict ends the reconcile.
  const std::string netpols = "/apis/networking.k8s.io/v1/namespaces/" + ns_ + "/networkpolicies";
  createForeign(kube::corePath(ns_, "configmaps"), "ConfigMap", "v1",
                api::configMapName("taken-cm"), "data: {k: v}\n");
  createForeign(kube::corePath(ns_, "services"), "Service", "v1",
                api::workersServiceName("taken-svc"),
                "spec:\n  clusterIP: None\n  ports: [{port: 80}]\n");
  createForeign(netpols, "NetworkPolicy", "networking.k8s.io/v1", api::networkPolicyName("taken-np"),
                "spec: {podSelector: {}}\n");
  createForeign(
      kube::corePath(ns_, "pods"), "Pod", "v1", api::podName("taken-pod", api::Role::Master, 0),
      "spec:\n  automountServiceAccountToken: false\n  containers: [{name: c, image: busybox}]\n");
  createForeign(kube::corePath(ns_, "secrets"), "Secret", "v1", api::runKeySecretName("taken-key"),
                "stringData: {key: not-yours}\n");
  if (HasFatalFailure()) return;
  const std::vector<std::string> taken = {"taken-cm", "taken-svc", "taken-np", "taken-pod",
                                          "taken-key"};
  for (const std::string& name : taken) {
    createBenchmark(name);
    EXPECT_TRUE(benchmarkWhere(name, [](const value& b) {
      return str(b, {"status", "phase"}) == "Failed" && str(b, {"status", "message"}).find("not this benchmark") !=
                                                            std::string::npos;
    })) << name << ": " << last_.serialize() << log();
  }

  // Schedule paths: the schedule (get, list, watch) creates its run (a
  // DistBenchmark create) and its baseline ConfigMap; the run, ended here
  // with its report stored as the benchmark reconciler would, joins the
  // pool (a ConfigMap update) and the schedule's status (update) says so.
  std::string run;
  ASSERT_TRUE(eventually(
      [&] {
        const value list = client_->get(benchmarksPath() + "?labelSelector=" +
                                        kube::queryEscape("distbench.io/schedule=nightly"));
        if (list.at("items").size() == 0) return false;
        run = str(list.at("items").at(0), {"metadata", "name"});
        return true;
      },
      90s))
      << "the schedule started no run within 90 s\n"
      << log();
  client_->create(kube::corePath(ns_, "configmaps"), value::parse(R"({"apiVersion": "v1",
    "kind": "ConfigMap", "metadata": {"name": ")" + api::reportConfigMapName(run) +
                                                                  R"("},
    "data": {")" + api::kReportKey + R"(": )" + value::string(tutorialReport()).serialize() +
                                                                  "}}"));
  ASSERT_TRUE(eventually([&] {
    try {
      value b = client_->get(benchmarksPath(run));
      b["status"] = value::parse(R"({"phase": "Succeeded", "completionTime": "2026-11-26T00:00:00Z",
        "conditions": [{"type": "ReportStored", "status": "True", "reason": "Stored",
                        "message": "stored", "lastTransitionTime": "2026-11-26T00:00:00Z"}]})");
      client_->replace(benchmarksPath(run) + "/status", b);
      return true;
    } catch (const kube::KubeApiError&) {
      return false;  // the operator wrote first: read again
    }
  })) << log();
  ASSERT_TRUE(eventually([&] {
    const value s =
        client_->get(kubetest::establishedScheduleCrd().path(ns_) + "/nightly");
    return str(s, {"status", "lastRun", "name"}) == run &&
           s.at("status").at("baseline").at("runs").size() == 1;
  })) << log();

  // SIGTERM: drains and hands the Lease back (an update).
  operator_->signal(SIGTERM);
  EXPECT_EQ(operator_->wait(15000), 0) << log();
  operator_.reset();

  // What a rerun in this cluster (--gtest_repeat) would trip over: the
  // Lease (its create would not be called again) and the failed benchmarks.
  client_->remove("/apis/coordination.k8s.io/v1/namespaces/" + kLeaseNamespace + "/leases/distbench-operator");
  for (const std::string& name : taken) client_->remove(benchmarksPath(name));

  // 3. The audit log: every request covered, every rule used.
  const std::vector<AuditRecord> records =
      kubetest::auditedRequests(*cluster_, KubeTestCluster::kOperatorUser, auditFrom, ns_);
  if (records.empty()) return;  // auditedRequests said why
  kubetest::expectRequestsMatchRules(records, granted, granted, KubeTestCluster::kOperatorUser);
}

}  // namespace
}  // namespace distbench::op
