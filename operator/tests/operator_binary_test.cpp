// The distbench-operator binary against the real API server: two replicas
// elect one leader, only the leader reconciles, the other takes over when
// the leader is killed; SIGTERM drains and hands the Lease back; the probes
// and /metrics answer; an outage of the control plane, during a run or at
// start, is ridden out by the same process.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <climits>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

#include "distbench/api/preflight_policy.h"
#include "distbench/kube/json_fields.h"
#include "distbench/kube/kube_client.h"
#include "distbench/operator/benchmarks/desired_objects.h"
#include "distbench/operator/benchmarks/reconciler.h"
#include "distbench/operator/common/status_conditions.h"
#include "distbench/testing/kube/control_plane_outage.h"
#include "distbench/testing/kube/operator_process.h"
#include "support/benchmark_namespace_test.h"
#include "support/kueue_harness.h"

#ifndef DISTBENCH_OPERATOR_BINARY
#error "DISTBENCH_OPERATOR_BINARY must name the built distbench-operator"
#endif

namespace distbench::op {
namespace {

using web::json::value;
using namespace std::chrono_literals;
using kubetest::OperatorProcess;

using kubetest::eventually;

// Sum of a metric family's samples (every label set) in text exposition.
double metricSum(const std::string& text, const std::string& name) {
  std::istringstream lines(text);
  std::string line;
  double sum = 0;
  while (std::getline(lines, line)) {
    if (line.rfind(name, 0) != 0 || line.size() <= name.size()) continue;
    const char next = line[name.size()];
    if (next != ' ' && next != '{') continue;
    sum += std::stod(line.substr(line.rfind(' ') + 1));
  }
  return sum;
}

class OperatorBinaryTest : public kubetest::BenchmarkNamespaceTest {
 protected:
  OperatorBinaryTest() : BenchmarkNamespaceTest("opbin") {}

  struct Replica {
    std::unique_ptr<OperatorProcess> process;
    int port = 0;
    std::string identity;
  };

  Replica start(const std::string& identity, bool elect = true,
                const std::vector<std::string>& extra = {}) {
    Replica r;
    r.identity = identity;
    r.port = kubetest::freePort();
    std::vector<std::string> args = {"--kubeconfig", kubeconfig_, "--namespace", ns_,
                                     "--http-address", "127.0.0.1:" + std::to_string(r.port),
                                     "--log-format", "text"};
    if (elect) {
      for (const char* a : {"--leader-elect", "--leader-election-namespace"}) args.push_back(a);
      args.push_back(ns_);
      for (const char* a : {"--lease-duration", "3", "--renew-deadline", "2", "--retry-period", "0.5"})
        args.push_back(a);
    }
    args.insert(args.end(), extra.begin(), extra.end());
    r.process = std::make_unique<OperatorProcess>(
        DISTBENCH_OPERATOR_BINARY, args, std::vector<std::string>{"POD_NAME=" + identity},
        dir_->path() + "/" + identity + ".log");
    return r;
  }

  std::string leaseHolder() {
    try {
      const value lease = client_->get("/apis/coordination.k8s.io/v1/namespaces/" + ns_ +
                                       "/leases/distbench-operator");
      const value& spec = lease.at("spec");
      return spec.has_field("holderIdentity") && spec.at("holderIdentity").is_string()
                 ? spec.at("holderIdentity").as_string()
                 : "";
    } catch (const kube::KubeApiError&) {
      return "";
    }
  }

  void createBenchmark(const std::string& name) {
    client_->create(kube::groupPath(kGroup, kVersion, ns_, kPlural),
                    kubetest::smallBenchmark(name));
  }

  size_t podCount(const std::string& name) {
    return client_
        ->get(kube::corePath(ns_, "pods") +
              "?labelSelector=" + kube::queryEscape(std::string(kLabelBenchmark) + "=" + name))
        .at("items")
        .size();
  }

  double reconciles(const Replica& r) {
    return metricSum(kubetest::httpGet(r.port, "/metrics").body,
                     "distbench_operator_reconcile_duration_seconds_count");
  }

  // After an outage: the client's pooled connections went with the old
  // server, and its next request may fail on one of them.
  void reconnect() {
    ASSERT_TRUE(eventually([&] {
      try {
        client_->get("/version");
        return true;
      } catch (const kube::KubeApiError&) {
        return false;
      }
    }));
  }

  // Every minute, runs like the benchmarks above.
  static value schedule(const std::string& name) {
    value s = value::object();
    s["apiVersion"] = value::string("distbench.io/v1alpha1");
    s["kind"] = value::string("DistBenchmarkSchedule");
    s["metadata"]["name"] = value::string(name);
    s["spec"]["schedule"] = value::string("* * * * *");
    s["spec"]["template"]["spec"] = kubetest::smallBenchmark(name).at("spec");
    return s;
  }

  // Whether the schedule controller has looked at schedule `name` (it sets
  // status.nextScheduleTime at once).
  bool scheduleServed(const std::string& name) {
    try {
      const value s = client_->get(kubetest::establishedScheduleCrd().path(ns_) + "/" + name);
      const value* status = kube::fieldOf(s, "status");
      return status != nullptr && !kube::stringField(*status, "nextScheduleTime").empty();
    } catch (const kube::KubeApiError&) {
      return false;
    }
  }

  static bool logSays(const Replica& r, const std::string& text) {
    return r.process->log().find(text) != std::string::npos;
  }
};

TEST_F(OperatorBinaryTest, ServesProbesAndMetricsAndReconciles) {
  Replica r = start("solo", false);
  ASSERT_TRUE(eventually([&] { return kubetest::httpGet(r.port, "/readyz").status == 200; }))
      << r.process->log();
  EXPECT_EQ(kubetest::httpGet(r.port, "/healthz").status, 200);
  createBenchmark("solo-run");
  ASSERT_TRUE(eventually([&] { return podCount("solo-run") == 4; })) << r.process->log();
  // The pods exist before the reconcile that made them has returned.
  std::string metrics;
  EXPECT_TRUE(eventually([&] {
    metrics = kubetest::httpGet(r.port, "/metrics").body;
    return metricSum(metrics, "distbench_operator_reconcile_duration_seconds_count") > 0 &&
           metrics.find("distbench_operator_benchmarks{phase=\"Pending\"} 1") != std::string::npos;
  })) << metrics;
  EXPECT_EQ(metricSum(metrics, "distbench_operator_leader"), 1);
  EXPECT_NE(metrics.find("distbench_operator_benchmarks{phase=\"Pending\"} 1"), std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("distbench_operator_watch_restarts_total{resource=\"pods\"}"), std::string::npos);
  // Events reached the API server.
  ASSERT_TRUE(eventually([&] {
    const value events = client_->get(kube::corePath(ns_, "events"));
    for (const value& e : events.at("items").as_array())
      if (e.at("reason").as_string() == "PodsCreated") return true;
    return false;
  }));
  r.process->signal(SIGTERM);
  EXPECT_EQ(r.process->wait(15000), 0) << r.process->log();
  EXPECT_NE(r.process->log().find("stopping"), std::string::npos);
}

// --preflight wires the gate's two controllers into the binary: the
// AdmissionCheck is kept Active, and a Workload whose nodes cannot be known
// gets its answer from the running operator.
TEST_F(OperatorBinaryTest, WithPreflightTheBinaryAnswersKueuesChecks) {
  kubetest::establishedPreflightPolicyCrd();
  kubetest::establishedKueueWorkloadCrd();
  kubetest::establishedKueueAdmissionCheckCrd();
  kubetest::KueueHarness kueue(*client_, ns_);
  const std::string check = ns_.substr(0, 40) + "-fabric";
  const std::string policy = ns_.substr(0, 40) + "-gate";
  const kubetest::Response created = kubetest::call(
      web::http::methods::POST, "/apis/distbench.io/v1alpha1/distbenchpreflightpolicies",
      "apiVersion: distbench.io/v1alpha1\nkind: DistBenchPreflightPolicy\nmetadata: {name: " +
          policy + "}\nspec: {template: {spec: {benchmark: {kind: Fabric}}}}\n",
      "application/yaml");
  ASSERT_EQ(created.status, 201) << created.body;
  kueue.createAdmissionCheck(check, api::kPreflightControllerName, policy);
  Replica r = start("gate", false, {"--preflight"});
  auto active = [&] {
    const value c = client_->get("/apis/kueue.x-k8s.io/v1beta1/admissionchecks/" + check);
    const value* status = kube::fieldOf(c, "status");
    return status != nullptr && conditionIsTrue(*status, "Active");
  };
  ASSERT_TRUE(eventually(active)) << r.process->log();
  kueue.createWorkload("train", 2, {check});
  kueue.reserveQuota("train", std::nullopt);
  ASSERT_TRUE(eventually([&] {
    return kube::stringField(kueue.checkState("train", check), "state") == "Rejected";
  })) << r.process->log();
  r.process->signal(SIGTERM);
  EXPECT_EQ(r.process->wait(15000), 0) << r.process->log();
  client_->remove("/apis/kueue.x-k8s.io/v1beta1/admissionchecks/" + check);
  client_->remove("/apis/distbench.io/v1alpha1/distbenchpreflightpolicies/" + policy);
}

TEST_F(OperatorBinaryTest, TwoReplicasOneLeaderAndTakeoverWhenItIsKilled) {
  Replica a = start("replica-a");
  ASSERT_TRUE(eventually([&] { return leaseHolder() == "replica-a"; })) << a.process->log();
  Replica b = start("replica-b");
  // The standby is ready (caches synced) but does not lead.
  ASSERT_TRUE(eventually([&] { return kubetest::httpGet(b.port, "/readyz").status == 200; }))
      << b.process->log();
  createBenchmark("first");
  ASSERT_TRUE(eventually([&] { return podCount("first") == 4; })) << a.process->log();
  std::this_thread::sleep_for(500ms);
  EXPECT_GT(reconciles(a), 0);
  EXPECT_EQ(reconciles(b), 0) << "the standby reconciled";
  EXPECT_EQ(metricSum(kubetest::httpGet(b.port, "/metrics").body, "distbench_operator_leader"), 0);
  EXPECT_EQ(leaseHolder(), "replica-a");

  a.process->signal(SIGKILL);  // no release: b must wait out the lease
  a.process->wait(5000);
  const auto killed = std::chrono::steady_clock::now();
  ASSERT_TRUE(eventually([&] { return leaseHolder() == "replica-b"; }, 20s)) << b.process->log();
  const double takeover =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
  EXPECT_LT(takeover, 10.0);
  createBenchmark("second");
  ASSERT_TRUE(eventually([&] { return podCount("second") == 4; })) << b.process->log();
  EXPECT_GT(reconciles(b), 0);
  std::printf("[ takeover ] replica-b led %.1f s after replica-a was killed (lease 3 s)\n", takeover);
}

TEST_F(OperatorBinaryTest, SigtermHandsTheLeaseBack) {
  Replica a = start("replica-a");
  ASSERT_TRUE(eventually([&] { return leaseHolder() == "replica-a"; })) << a.process->log();
  Replica b = start("replica-b");
  ASSERT_TRUE(eventually([&] { return kubetest::httpGet(b.port, "/readyz").status == 200; }));
  a.process->signal(SIGTERM);
  EXPECT_EQ(a.process->wait(15000), 0) << a.process->log();
  // Released, so b need not wait out the 3 s lease.
  const auto released = std::chrono::steady_clock::now();
  ASSERT_TRUE(eventually([&] { return leaseHolder() == "replica-b"; }, 20s)) << b.process->log();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - released).count(), 3.0);
}

// kube-apiserver and etcd stopped for longer than the renew deadline (2 s
// here): the leader cannot renew its Lease, stops leading and pauses its
// workers, and campaigns again, in the same process, while /healthz goes
// on answering. Once the control plane is back it wins the Lease again and
// both controllers work. (Until now it exited, and a replica restarted
// into an outage turned schedules off.)
TEST_F(OperatorBinaryTest, AControlPlaneOutageIsNoCrash) {
  kubetest::establishedScheduleCrd();
  Replica a = start("replica-a");
  ASSERT_TRUE(eventually([&] { return leaseHolder() == "replica-a"; })) << a.process->log();
  ASSERT_TRUE(eventually([&] { return kubetest::httpGet(a.port, "/readyz").status == 200; }));
  createBenchmark("before");
  ASSERT_TRUE(eventually([&] { return podCount("before") == 4; })) << a.process->log();
  const int pid = a.process->pid();
  {
    kubetest::ControlPlaneOutage outage(*cluster_);
    ASSERT_TRUE(eventually([&] { return logSays(a, "campaigning for the Lease again"); }))
        << "the leader did not pause and campaign again:\n"
        << a.process->log();
    EXPECT_TRUE(a.process->running());
    EXPECT_EQ(kubetest::httpGet(a.port, "/healthz").status, 200);
    // A few tries at the Lease (0.5 s apart) fail before it is back.
    outage.endAfter(6s);
    std::fprintf(stderr, "control plane down for %.1f s\n",
                 std::chrono::duration<double>(outage.elapsed()).count());
  }
  const auto back = std::chrono::steady_clock::now();
  reconnect();
  ASSERT_TRUE(eventually([&] { return leaseHolder() == "replica-a"; })) << a.process->log();
  std::fprintf(stderr, "leading again %.1f s after the control plane's return\n",
               std::chrono::duration<double>(std::chrono::steady_clock::now() - back).count());
  EXPECT_TRUE(eventually([&] { return kubetest::httpGet(a.port, "/readyz").status == 200; }));
  ASSERT_TRUE(a.process->running()) << a.process->log();
  EXPECT_EQ(a.process->pid(), pid);

  // Both worker pools run again.
  createBenchmark("after");
  EXPECT_TRUE(eventually([&] { return podCount("after") == 4; })) << a.process->log();
  client_->create(kubetest::establishedScheduleCrd().path(ns_), schedule("after"));
  EXPECT_TRUE(eventually([&] { return scheduleServed("after"); })) << a.process->log();
  EXPECT_TRUE(a.process->running()) << a.process->log();
}

// A replica (re)started while the API server is down is alive but not
// ready, asks again whether schedules are served, and serves them once it
// answers: no answer is never taken for "no".
TEST_F(OperatorBinaryTest, StartedWhileTheApiServerIsDownSchedulesStillRun) {
  kubetest::establishedScheduleCrd();
  Replica a;
  {
    kubetest::ControlPlaneOutage outage(*cluster_);
    a = start("replica-a");
    ASSERT_TRUE(eventually([&] { return logSays(a, "asking again until it answers"); }))
        << a.process->log();
    EXPECT_EQ(kubetest::httpGet(a.port, "/healthz").status, 200);
    EXPECT_EQ(kubetest::httpGet(a.port, "/readyz").status, 503);
    // Refused again 1 s and 3 s after its start.
    outage.endAfter(4s);
    std::fprintf(stderr, "control plane down for %.1f s\n",
                 std::chrono::duration<double>(outage.elapsed()).count());
  }
  reconnect();
  ASSERT_TRUE(eventually([&] { return kubetest::httpGet(a.port, "/readyz").status == 200; }))
      << a.process->log();
  client_->create(kubetest::establishedScheduleCrd().path(ns_), schedule("served"));
  EXPECT_TRUE(eventually([&] { return scheduleServed("served"); })) << a.process->log();
  EXPECT_TRUE(a.process->running());
  EXPECT_FALSE(logSays(a, "DistBenchmarkSchedules are off")) << a.process->log();
}

TEST_F(OperatorBinaryTest, BadFlagsAreRefusedNamingTheFlag) {
  OperatorProcess p(DISTBENCH_OPERATOR_BINARY, {"--workers", "zero"}, {}, dir_->path() + "/bad.log");
  EXPECT_EQ(p.wait(10000), 2);
  EXPECT_NE(p.log().find("--workers: expected a whole number >= 1, got \"zero\""), std::string::npos)
      << p.log();
  OperatorProcess q(DISTBENCH_OPERATOR_BINARY, {"--kubeconfig", dir_->path() + "/missing"}, {},
                    dir_->path() + "/missing.log");
  EXPECT_EQ(q.wait(10000), 1);
  EXPECT_NE(q.log().find("missing"), std::string::npos) << q.log();
}

}  // namespace
}  // namespace distbench::op
