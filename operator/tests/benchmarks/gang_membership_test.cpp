// Who the gang is, against the real API server: a label is no proof of
// membership. Anyone who may create a pod in the namespace may label it
// `distbench.io/benchmark=<name>, distbench.io/role=master`; such a pod must
// not receive the trainers' store connections (the master Service's
// endpoints are the operator's own master pod) and is not selected by the
// headless Service or the NetworkPolicy (they also select the run's UID,
// which no pod planted before the resource existed can carry).
#include "support/controller_test_fixture.h"

namespace distbench::op {
namespace {

class GangMembershipTest : public ControllerTest {
 protected:
  // The kubelet's part for `pod`: Running, with `ip` as its address.
  void runningAt(const std::string& pod, const std::string& ip) {
    value patch = kubetest::podStatusPatch("Running");
    patch["status"]["podIP"] = value::string(ip);
    patch["status"]["podIPs"] = value::array({value::object()});
    patch["status"]["podIPs"][0]["ip"] = value::string(ip);
    client_->mergePatch(kube::corePath(ns_, "pods", pod) + "/status", patch);
  }

  // The IPs of the master Service's Endpoints ("" while there are none).
  std::string masterEndpointIps(const std::string& service) {
    try {
      const value e = client_->get(kube::corePath(ns_, "endpoints", service));
      std::string ips;
      if (!e.has_field("subsets")) return ips;
      for (const value& subset : e.at("subsets").as_array())
        if (subset.has_field("addresses"))
          for (const value& a : subset.at("addresses").as_array())
            ips += (ips.empty() ? "" : ",") + a.at("ip").as_string();
      return ips;
    } catch (const kube::KubeApiError& e) {
      if (e.notFound()) return "";
      throw;
    }
  }

  // A pod of someone else's, labelled as the benchmark's master.
  void plantImpostor(const std::string& benchmark, const std::string& name) {
    value pod = value::object();
    pod["apiVersion"] = value::string("v1");
    pod["kind"] = value::string("Pod");
    pod["metadata"]["name"] = value::string(name);
    pod["metadata"]["labels"][kLabelBenchmark] = value::string(benchmark);
    pod["metadata"]["labels"][kLabelRole] = value::string("master");
    pod["metadata"]["labels"][kLabelRank] = value::string("0");
    pod["metadata"]["labels"][kLabelGang] = value::string("0");
    value container = value::object();
    container["name"] = value::string("store");
    container["image"] = value::string("example/impostor:1");
    pod["spec"]["containers"] = value::array({container});
    // The namespace is fresh: its service account may have no token yet.
    pod["spec"]["automountServiceAccountToken"] = value::boolean(false);
    client_->create(kube::corePath(ns_, "pods"), pod);
  }
};

TEST_F(GangMembershipTest, APodLabelledAsTheMasterGetsNoneOfTheTrainersConnections) {
  startController();
  plantImpostor("m", "m-impostor");
  runningAt("m-impostor", "198.18.0.66");
  createBenchmark("m");
  // The benchmark's four pods, and the impostor that carries its label.
  ASSERT_TRUE(eventually([&] { return podsAre("m", 5); }));

  const value service = client_->get(kube::corePath(ns_, "services", "m-master"));
  EXPECT_FALSE(service.at("spec").has_field("selector"))
      << "a selector lets any pod with the labels into the master Service";

  // Before the master pod has an address there is nothing to point at.
  EXPECT_EQ(masterEndpointIps("m-master"), "");
  runningAt("m-master-0", "198.18.0.10");
  ASSERT_TRUE(eventually([&] { return masterEndpointIps("m-master") == "198.18.0.10"; }))
      << "Endpoints: " << masterEndpointIps("m-master");

  // The headless Service selects the run's UID, which the impostor lacks.
  const std::string uid = getBenchmark("m").at("metadata").at("uid").as_string();
  const value workers = client_->get(kube::corePath(ns_, "services", "m-workers"));
  EXPECT_EQ(str(workers, {"spec", "selector", kLabelRun}), uid);
  const value master = client_->get(kube::corePath(ns_, "pods", "m-master-0"));
  EXPECT_EQ(str(master, {"metadata", "labels", kLabelRun}), uid);
  // Nor is the impostor the operator's to delete: it is someone else's.
  EXPECT_NO_THROW(client_->get(kube::corePath(ns_, "pods", "m-impostor")));
  // And not counted as a rank: one master, active and ready.
  EXPECT_TRUE(benchmarkWhere("m", [](const value& b) {
    const value* m = b.has_field("status") && b.at("status").has_field("master")
                         ? &b.at("status").at("master") : nullptr;
    return m != nullptr && m->at("ready").as_integer() == 1 && m->at("active").as_integer() == 1;
  })) << last_.serialize();
}

// The store trusts whoever names its keys; the run key (a Secret that only
// the gang's pods mount) is what no one outside the gang can name.
TEST_F(GangMembershipTest, EachRunHasAKeyOnlyItsPodsMountAndARestartKeepsIt) {
  startController();
  createBenchmark("k", value::parse(R"({"runPolicy": {"backoffLimit": 1}})"));
  ASSERT_TRUE(eventually([&] { return podsAre("k", 4, "0"); }));
  const value secret = client_->get(kube::corePath(ns_, "secrets", "k-run-key"));
  const std::string uid = getBenchmark("k").at("metadata").at("uid").as_string();
  const value& ref = secret.at("metadata").at("ownerReferences").at(0);
  EXPECT_EQ(ref.at("uid").as_string(), uid);
  EXPECT_TRUE(ref.at("controller").as_bool());
  EXPECT_TRUE(secret.at("immutable").as_bool());
  const std::string key = str(secret, {"data", kRunKeyFile});
  ASSERT_FALSE(key.empty()) << secret.serialize();
  for (const value& pod : podsOf("k")) {
    bool mounted = false;
    for (const value& v : pod.at("spec").at("volumes").as_array())
      mounted |= v.has_field("secret") && v.at("secret").at("secretName").as_string() == "k-run-key";
    EXPECT_TRUE(mounted) << pod.serialize();
  }
  // A new gang reads the same Secret: the key is the benchmark's.
  setPod("k-trainer-0", "Failed", 1);
  ASSERT_TRUE(eventually([&] { return podsAre("k", 4, "1"); }, 30s));
  EXPECT_EQ(str(client_->get(kube::corePath(ns_, "secrets", "k-run-key")), {"data", kRunKeyFile}),
            key);
}

TEST_F(GangMembershipTest, EndpointsSomeoneElseWroteForTheMasterServiceAreReplaced) {
  // Written before the run, pointing at a foreign address.
  client_->create(kube::corePath(ns_, "endpoints"), value::parse(R"({
    "apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "e-master"},
    "subsets": [{"addresses": [{"ip": "198.18.0.66"}], "ports": [{"name": "store", "port": 29500}]}]
  })"));
  startController();
  createBenchmark("e");
  ASSERT_TRUE(eventually([&] { return podsAre("e", 4); }));
  runningAt("e-master-0", "198.18.0.11");
  EXPECT_TRUE(eventually([&] { return masterEndpointIps("e-master") == "198.18.0.11"; }))
      << "Endpoints: " << masterEndpointIps("e-master");
}

TEST_F(GangMembershipTest, ANewGangsMasterTakesOverTheEndpoints) {
  startController();
  createBenchmark("g", value::parse(R"({"runPolicy": {"backoffLimit": 1}})"));
  ASSERT_TRUE(eventually([&] { return podsAre("g", 4, "0"); }));
  runningAt("g-master-0", "198.18.0.12");
  ASSERT_TRUE(eventually([&] { return masterEndpointIps("g-master") == "198.18.0.12"; }));
  // A trainer fails: the gang restarts with new pods, the master at a new
  // address.
  setPod("g-trainer-0", "Failed", 1);
  ASSERT_TRUE(eventually([&] { return podsAre("g", 4, "1"); }, 30s));
  // Until the new master has an address the Service has none: not the old
  // master's, which may be gone (a connection there waits for a timeout).
  EXPECT_TRUE(eventually([&] { return masterEndpointIps("g-master").empty(); }))
      << "Endpoints: " << masterEndpointIps("g-master");
  runningAt("g-master-0", "198.18.0.13");
  EXPECT_TRUE(eventually([&] { return masterEndpointIps("g-master") == "198.18.0.13"; }))
      << "Endpoints: " << masterEndpointIps("g-master");
}

TEST_F(GangMembershipTest, EndpointsTheServerRefusesAreAWarningNotAStuckRun) {
  // A quota that allows no Endpoints: every write is refused (403).
  // Admission enforces it once its status holds the limits and usage; the
  // test plays the quota controller's part.
  client_->create(kube::corePath(ns_, "resourcequotas"), value::parse(R"({
    "apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "no-endpoints"},
    "spec": {"hard": {"count/endpoints": "0"}}
  })"));
  client_->mergePatch(kube::corePath(ns_, "resourcequotas", "no-endpoints") + "/status",
                      value::parse(R"({"status": {"hard": {"count/endpoints": "0"},
                                                  "used": {"count/endpoints": "0"}}})"));
  startController();
  createBenchmark("q");
  ASSERT_TRUE(eventually([&] { return podsAre("q", 4); }));
  allRunning("q");
  EXPECT_TRUE(benchmarkWhere("q", [](const value& b) { return str(b, {"status", "phase"}) == "Running"; }))
      << last_.serialize();
  EXPECT_TRUE(eventually([&] { return sawEvent("EndpointsRefused"); }));
  EXPECT_EQ(masterEndpointIps("q-master"), "");
}

}  // namespace
}  // namespace distbench::op
