// What a hardened, shared cluster does to a benchmark, against the real API
// server: pod creates refused by admission (a ResourceQuota, a LimitRange)
// become a condition, Events and then Failed/CreateFailed, and the deadline
// holds meanwhile; two benchmarks whose names nest ("col", "col-master") get
// disjoint children; a name taken by someone else's object is refused; a
// rank pod being deleted is a failed rank at once, and one whose containers
// exited is removed without waiting for its kubelet; the NetworkPolicy
// comes and goes with the run.
#include "support/controller_test_fixture.h"

namespace distbench::op {
namespace {

class ControllerSafetyTest : public ControllerTest {
 protected:
  void createObject(const std::string& plural, const std::string& json) {
    client_->create(kube::corePath(ns_, plural), value::parse(json));
  }

  bool exists(const std::string& path) {
    try {
      client_->get(path);
      return true;
    } catch (const kube::KubeApiError& e) {
      if (e.notFound()) return false;
      throw;
    }
  }

  // A client with other credentials for the controller; a member, so that
  // it outlives the controller, which TearDown stops.
  std::unique_ptr<kube::KubeClient> asOperator_;

  std::string networkPolicyPath(const std::string& name) {
    return kube::groupPath("networking.k8s.io", "v1", ns_, "networkpolicies", name);
  }

};

TEST_F(ControllerSafetyTest, AQuotaThatRefusesThePodsIsACreateFailedConditionThenFailed) {
  // One pod allowed: the gang needs four. Admission enforces a quota once
  // its status holds the hard limits and usage, which the quota controller
  // writes; the test plays that controller's part, as it plays the
  // kubelet's for pods.
  createObject("resourcequotas",
               R"({"metadata":{"name":"one-pod"},"spec":{"hard":{"pods":"1"}}})");
  client_->mergePatch(kube::corePath(ns_, "resourcequotas", "one-pod") + "/status",
                      value::parse(R"({"status":{"hard":{"pods":"1"},"used":{"pods":"0"}}})"));
  startController(4s);
  createBenchmark("quota");
  ASSERT_TRUE(benchmarkWhere("quota", [](const value& b) { return conditionTrue(b, "CreateFailed"); }))
      << last_.serialize();
  const std::string message = condition(last_, "CreateFailed")->at("message").as_string();
  EXPECT_NE(message.find("the API server refused to create quota-"), std::string::npos) << message;
  EXPECT_NE(message.find("forbidden"), std::string::npos) << message;
  EXPECT_EQ(str(last_, {"status", "phase"}), "Pending");
  EXPECT_TRUE(eventually([&] { return sawEvent("Warning CreateFailed: the API server refused"); }));

  ASSERT_TRUE(benchmarkWhere("quota", [](const value& b) { return str(b, {"status", "phase"}) == "Failed"; }))
      << last_.serialize();
  EXPECT_EQ(condition(last_, "Failed")->at("reason").as_string(), "CreateFailed");
  EXPECT_NE(str(last_, {"status", "message"}).find("still refused after 4 s"), std::string::npos);
  // Nothing is left running: the pod the quota let through is cleaned up.
  EXPECT_TRUE(eventually([&] { return podsAre("quota", 0); }));
}

TEST_F(ControllerSafetyTest, TheDeadlineHoldsWhileCreatesAreRefused) {
  // Every pod must declare a memory limit, and ours declare none: all
  // refused (a Pod-level maximum gets no default to fill in, unlike a
  // Container-level one).
  createObject("limitranges", R"({"metadata":{"name":"pod-limit"},
      "spec":{"limits":[{"type":"Pod","max":{"memory":"1Gi"}}]}})");
  startController(300s);
  value spec = value::object();
  spec["runPolicy"]["activeDeadlineSeconds"] = value::number(3);
  createBenchmark("late", spec);
  ASSERT_TRUE(benchmarkWhere("late", [](const value& b) { return conditionTrue(b, "CreateFailed"); }))
      << last_.serialize();
  EXPECT_NE(condition(last_, "CreateFailed")->at("message").as_string().find("memory"),
            std::string::npos);
  ASSERT_TRUE(benchmarkWhere("late", [](const value& b) { return str(b, {"status", "phase"}) == "Failed"; }))
      << last_.serialize();
  EXPECT_EQ(condition(last_, "Failed")->at("reason").as_string(), "DeadlineExceeded");
}

TEST_F(ControllerSafetyTest, BenchmarksWhoseNamesNestGetTheirOwnChildren) {
  startController();
  const std::string colUid = createBenchmark("col").at("metadata").at("uid").as_string();
  const std::string nestedUid = createBenchmark("col-master").at("metadata").at("uid").as_string();
  ASSERT_TRUE(eventually([&] { return podsAre("col", 4) && podsAre("col-master", 4); }));
  allRunning("col");
  allRunning("col-master");
  for (const char* name : {"col", "col-master"}) {
    ASSERT_TRUE(benchmarkWhere(name, [](const value& b) { return str(b, {"status", "phase"}) == "Running"; }))
        << last_.serialize();
  }
  // Several reconciles later, still one owner per object and no restart.
  std::this_thread::sleep_for(2s);
  const std::map<std::string, std::string> owners = {
      {kube::corePath(ns_, "services", "col-master"), colUid},
      {kube::corePath(ns_, "services", "col-workers"), colUid},
      {kube::corePath(ns_, "services", "col-master-workers"), nestedUid},
      {kube::corePath(ns_, "services", "col-master-master"), nestedUid},
      {kube::corePath(ns_, "configmaps", "col-config"), colUid},
      {kube::corePath(ns_, "configmaps", "col-master-config"), nestedUid},
      {networkPolicyPath("col-gang"), colUid},
      {networkPolicyPath("col-master-gang"), nestedUid},
  };
  for (const auto& [path, uid] : owners) {
    const value o = client_->get(path);
    EXPECT_EQ(o.at("metadata").at("ownerReferences").at(0).at("uid").as_string(), uid) << path;
  }
  for (const char* name : {"col", "col-master"}) {
    const value b = getBenchmark(name);
    EXPECT_EQ(str(b, {"status", "restartCount"}), "0") << name;
    EXPECT_EQ(str(b, {"status", "phase"}), "Running") << name;
  }
}

TEST_F(ControllerSafetyTest, ANameTakenBySomeoneElsesObjectIsRefusedAndLeftAlone) {
  createObject("configmaps", R"({"metadata":{"name":"taken-config"},"data":{"mine":"yes"}})");
  startController();
  createBenchmark("taken");
  ASSERT_TRUE(benchmarkWhere("taken", [](const value& b) { return str(b, {"status", "phase"}) == "Failed"; }))
      << last_.serialize();
  EXPECT_EQ(condition(last_, "Failed")->at("reason").as_string(), "NameConflict");
  EXPECT_NE(str(last_, {"status", "message"}).find("ConfigMap " + ns_ + "/taken-config exists"),
            std::string::npos)
      << last_.serialize();
  EXPECT_EQ(str(client_->get(kube::corePath(ns_, "configmaps", "taken-config")), {"data", "mine"}),
            "yes");
  EXPECT_TRUE(podsAre("taken", 0));
}

TEST_F(ControllerSafetyTest, ARankPodBeingDeletedRestartsTheGangBeforeItIsGone) {
  startController();
  createBenchmark("doomed");
  ASSERT_TRUE(eventually([&] { return podsAre("doomed", 4, "0"); }));
  allRunning("doomed");
  ASSERT_TRUE(benchmarkWhere("doomed", [](const value& b) { return str(b, {"status", "phase"}) == "Running"; }));
  // A finalizer holds the pod in Terminating, as a kubelet does for its
  // grace period.
  const std::string pod = kube::corePath(ns_, "pods", "doomed-trainer-0");
  client_->mergePatch(pod, value::parse(R"({"metadata":{"finalizers":["distbench.io/test-hold"]}})"));
  client_->remove(pod);
  ASSERT_TRUE(benchmarkWhere("doomed", [](const value& b) {
    return str(b, {"status", "restartCount"}) == "1" && conditionTrue(b, "Restarting");
  })) << last_.serialize();
  EXPECT_NE(condition(last_, "Restarting")->at("message").as_string().find(
                "doomed-trainer-0 (rank 2): deleted while the gang ran"),
            std::string::npos)
      << last_.serialize();
  EXPECT_TRUE(exists(pod));  // decided while it was still terminating
  client_->mergePatch(pod, value::parse(R"({"metadata":{"finalizers":null}})"));
  ASSERT_TRUE(eventually([&] { return podsAre("doomed", 4, "1"); }));
}

// A kubelet keeps a pod it was told to delete until it has reclaimed the
// sandbox and volumes, seconds to tens of seconds after the containers have
// exited. Here the pod is bound to a node no kubelet serves and deleted with
// a long grace period: only the operator can remove it, and it must, once
// the pod's status says its containers exited, and not before.
TEST_F(ControllerSafetyTest, AnOldGangPodWhoseContainersExitedIsRemovedForTheNextGang) {
  startController();
  createBenchmark("held");
  ASSERT_TRUE(eventually([&] { return podsAre("held", 4, "0"); }));
  const std::string pod = kube::corePath(ns_, "pods", "held-trainer-1");
  value binding = value::parse(
      R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"held-trainer-1"},
          "target":{"apiVersion":"v1","kind":"Node","name":"node-without-kubelet"}})");
  client_->create(pod + "/binding", binding);
  allRunning("held");
  ASSERT_TRUE(benchmarkWhere("held", [](const value& b) { return str(b, {"status", "phase"}) == "Running"; }));

  client_->remove(pod, kube::DeleteOptions{600, ""});
  ASSERT_TRUE(benchmarkWhere("held", [](const value& b) {
    return str(b, {"status", "restartCount"}) == "1";
  })) << last_.serialize();
  // Still running as far as anyone knows: the old rank is not yanked out
  // from under its process, and the new gang waits for it.
  // The restart is recorded before the old gang's pods are deleted.
  EXPECT_TRUE(eventually([&] { return podsAre("held", 0); }))
      << podsOf("held").size() << " pods not being deleted";
  EXPECT_TRUE(exists(pod));

  setPod("held-trainer-1", "Failed", 143);  // the kubelet: the container exited
  ASSERT_TRUE(eventually([&] { return podsAre("held", 4, "1"); }));
}

// The same hold after the benchmark itself was deleted: the garbage
// collector deletes the pods, and a kubelet would keep one whose containers
// exited for tens of seconds more.
TEST_F(ControllerSafetyTest, AGangPodOfADeletedBenchmarkIsRemovedOnceItsContainersExited) {
  startController();
  createBenchmark("gone");
  ASSERT_TRUE(eventually([&] { return podsAre("gone", 4, "0"); }));
  const std::string pod = kube::corePath(ns_, "pods", "gone-trainer-0");
  client_->create(pod + "/binding",
                  value::parse(R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"gone-trainer-0"},
                     "target":{"apiVersion":"v1","kind":"Node","name":"node-without-kubelet"}})"));
  allRunning("gone");
  client_->remove(pod, kube::DeleteOptions{600, ""});
  client_->remove(benchmarksPath("gone"));
  ASSERT_TRUE(eventually([&] {
    try {
      client_->get(benchmarksPath("gone"));
      return false;
    } catch (const kube::KubeApiError& e) {
      return e.notFound();
    }
  }));
  EXPECT_TRUE(exists(pod));  // still running: left to its grace period
  setPod("gone-trainer-0", "Failed", 143);
  EXPECT_TRUE(eventually([&] { return !exists(pod); }));
}

TEST_F(ControllerSafetyTest, TheNetworkPolicyGuardsTheRunAndGoesWithItsServices) {
  startController();
  const std::string uid = createBenchmark("guarded").at("metadata").at("uid").as_string();
  ASSERT_TRUE(eventually([&] { return podsAre("guarded", 4); }));
  const value np = client_->get(networkPolicyPath("guarded-gang"));
  EXPECT_EQ(np.at("metadata").at("ownerReferences").at(0).at("uid").as_string(), uid);
  EXPECT_EQ(str(np, {"spec", "podSelector", "matchLabels", kLabelBenchmark}), "guarded");
  allRunning("guarded");
  ASSERT_TRUE(benchmarkWhere("guarded", [](const value& b) { return str(b, {"status", "phase"}) == "Running"; }));
  for (const char* p : {"-trainer-0", "-trainer-1", "-master-0"}) setPod(std::string("guarded") + p, "Succeeded");
  ASSERT_TRUE(benchmarkWhere("guarded", [](const value& b) { return str(b, {"status", "phase"}) == "Succeeded"; }));
  EXPECT_TRUE(eventually([&] { return !exists(networkPolicyPath("guarded-gang")); }));
}

// The operator as a user bound only to what it needs in the namespace and to
// the "restricted" PodSecurityPolicy: its pods must be admitted as they are
// (not mutated into compliance by the policy), and a role that relaxes the
// profile is refused, as a hardened cluster would.
// Without --allow-privileged-overrides, a template that asks for root or
// kernel privileges is refused before any pod exists, naming the field.
TEST_F(ControllerSafetyTest, PrivilegedOverridesAreAnInvalidSpecUnlessTheOperatorAllowsThem) {
  startController();
  value privileged = value::object();
  privileged["podTemplates"]["trainer"]["podSecurityContext"] =
      value::parse(R"({"runAsNonRoot":false,"runAsUser":0})");
  privileged["podTemplates"]["trainer"]["securityContext"] =
      value::parse(R"({"capabilities":{"add":["SYS_ADMIN"]}})");
  createBenchmark("asks-root", privileged);
  ASSERT_TRUE(benchmarkWhere("asks-root", [](const value& b) { return str(b, {"status", "phase"}) == "Failed"; }))
      << last_.serialize();
  EXPECT_EQ(condition(last_, "Failed")->at("reason").as_string(), "InvalidSpec");
  const std::string message = str(last_, {"status", "message"});
  for (const char* field : {"spec.podTemplates.trainer.podSecurityContext.runAsUser",
                            "spec.podTemplates.trainer.securityContext.capabilities.add[0]",
                            "--allow-privileged-overrides"}) {
    EXPECT_NE(message.find(field), std::string::npos) << field << " not in " << message;
  }
  EXPECT_TRUE(podsOf("asks-root").empty());
}

// The operator's parse applies the derived limits: fields the schema lets
// through one by one, whose sum overflows, fail naming the field.
TEST_F(ControllerSafetyTest, SizesPastADerivedLimitAreAnInvalidSpecNamingTheField) {
  startController();
  value huge = value::object();
  huge["benchmark"]["hybridDDPRPC"]["warmupEpochs"] = value::number(2147483647);
  huge["benchmark"]["hybridDDPRPC"]["epochs"] = value::number(2147483647);
  createBenchmark("overflows", huge);
  ASSERT_TRUE(benchmarkWhere("overflows", [](const value& b) { return str(b, {"status", "phase"}) == "Failed"; }))
      << last_.serialize();
  EXPECT_EQ(condition(last_, "Failed")->at("reason").as_string(), "InvalidSpec");
  const std::string message = str(last_, {"status", "message"});
  EXPECT_NE(message.find("spec.benchmark.hybridDDPRPC.epochs: warmupEpochs + epochs"),
            std::string::npos)
      << message;
  EXPECT_TRUE(podsOf("overflows").empty());
}

TEST_F(ControllerSafetyTest, APodSecurityPolicyRestrictedAdmitsTheGangUnchanged) {
  const std::string user = kubetest::KubeTestCluster::kOperatorUser;
  const std::string rbac = "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns_;
  client_->create(rbac + "/roles", value::parse(R"({"metadata":{"name":"operator"},"rules":[
      {"apiGroups":["distbench.io"],"resources":["distbenchmarks"],"verbs":["get","list","watch","delete"]},
      {"apiGroups":["distbench.io"],"resources":["distbenchmarks/status"],"verbs":["update"]},
      {"apiGroups":[""],"resources":["pods","services","configmaps"],"verbs":["get","list","watch","create","delete"]},
      {"apiGroups":[""],"resources":["secrets"],"verbs":["get","create","delete"]},
      {"apiGroups":["networking.k8s.io"],"resources":["networkpolicies"],"verbs":["get","list","watch","create","delete"]},
      {"apiGroups":[""],"resources":["events"],"verbs":["create","patch"]}]})"));
  auto bind = [&](const std::string& name, const std::string& kind, const std::string& role) {
    value binding = value::parse(R"({"roleRef":{"apiGroup":"rbac.authorization.k8s.io"},
        "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User"}]})");
    binding["metadata"]["name"] = value::string(name);
    binding["roleRef"]["kind"] = value::string(kind);
    binding["roleRef"]["name"] = value::string(role);
    binding["subjects"][0]["name"] = value::string(user);
    client_->create(rbac + "/rolebindings", binding);
  };
  bind("operator", "Role", "operator");
  bind("restricted-psp", "ClusterRole", kubetest::KubeTestCluster::restrictedPspClusterRole());
  const std::string kubeconfig = dir_->path() + "/operator.kubeconfig";
  cluster_->writeKubeconfig(kubeconfig, user);
  asOperator_ = std::make_unique<kube::KubeClient>(kube::loadKubeconfig(kubeconfig));
  // Let the root template through the operator, to see the policy refuse it.
  allowPrivilegedOverrides_ = true;
  startController(3s, asOperator_.get());

  createBenchmark("hardened");
  ASSERT_TRUE(eventually([&] { return podsAre("hardened", 4); })) << last_.serialize();
  for (const value& pod : podsOf("hardened")) {
    const std::string name = str(pod, {"metadata", "name"});
    EXPECT_EQ(str(pod, {"metadata", "annotations", "kubernetes.io/psp"}),
              kubetest::KubeTestCluster::kRestrictedPsp)
        << name;
    // What the operator sent, not what the policy would have defaulted.
    const value& sc = pod.at("spec").at("containers").at(0).at("securityContext");
    EXPECT_FALSE(sc.at("allowPrivilegeEscalation").as_bool()) << name;
    EXPECT_TRUE(sc.at("readOnlyRootFilesystem").as_bool()) << name;
    EXPECT_EQ(sc.at("capabilities").at("drop").at(0).as_string(), "ALL") << name;
    EXPECT_EQ(str(pod, {"spec", "securityContext", "runAsUser"}), std::to_string(kWorkerUid)) << name;
  }
  EXPECT_FALSE(conditionTrue(getBenchmark("hardened"), "CreateFailed"));

  // A trainer template that asks for root: the policy refuses those pods.
  value rootTrainers = value::object();
  rootTrainers["podTemplates"]["trainer"]["podSecurityContext"] =
      value::parse(R"({"runAsNonRoot":false,"runAsUser":0})");
  createBenchmark("asks-root", rootTrainers);
  ASSERT_TRUE(benchmarkWhere("asks-root", [](const value& b) { return conditionTrue(b, "CreateFailed"); }))
      << last_.serialize();
  const std::string why = condition(last_, "CreateFailed")->at("message").as_string();
  EXPECT_NE(why.find("asks-root-trainer-0"), std::string::npos) << why;
  EXPECT_NE(why.find("PodSecurityPolicy: unable to admit pod"), std::string::npos) << why;
  ASSERT_TRUE(benchmarkWhere("asks-root", [](const value& b) { return str(b, {"status", "phase"}) == "Failed"; }))
      << last_.serialize();
  EXPECT_EQ(condition(last_, "Failed")->at("reason").as_string(), "CreateFailed");
}

}  // namespace
}  // namespace distbench::op
